/**
 * A provider (model, enrichment API) that answers only when released: the tests of paid calls that
 * must not hold the organization's credits lock while the provider works ask another paid call in
 * that moment and expect it answered.
 */
import { call, type SignedUp } from './api';

export interface HeldAnswer {
  /** Resolves once the provider has been asked. */
  asked: Promise<void>;
  /** Lets the provider answer. */
  release: () => void;
  /** Called by the provider: marks it asked, then waits for `release`. */
  hold: () => Promise<void>;
}

export function heldAnswer(): HeldAnswer {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let markAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => {
    markAsked = resolve;
  });
  return {
    asked,
    release,
    hold: async () => {
      markAsked();
      await released;
    },
  };
}

/**
 * Another paid call of the organization (a magicpen note) made while the provider is held: its
 * status, or `heldUp` when it has not answered within 3 s (it waited on a lock the held call keeps).
 */
export function paidCallMeanwhile(org: Pick<SignedUp, 'token'>, heldUp: string): Promise<number | string> {
  return Promise.race([
    call('POST', '/api/ai-tools/magicpen', { token: org.token, body: { noteText: 'call ada back' } }).then(
      (response) => response.status,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve(heldUp), 3_000)),
  ]);
}
