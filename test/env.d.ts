/// <reference types="vite/client" />
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('../src/index');
  }
  interface Env extends import('../src/env').Bindings {}
}
