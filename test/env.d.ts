/// <reference types="vite/client" />
type WorkerBindings = import('../src/env').Bindings;

declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('../src/index');
  }
  interface Env extends WorkerBindings {}
}
