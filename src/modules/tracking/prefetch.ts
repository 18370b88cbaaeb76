/**
 * Mail clients that fetch a message's images without a person opening it: their pixel hits are
 * still recorded as opens, flagged `adjusted`, and count for nothing toward the intent score
 * (modules/intent/scoring.ts) or email_opened_3x. Edge-side and dependency-free: the pixel route
 * calls it with the request's User-Agent and client IP.
 *
 * - Gmail's image proxy fetches every image of a message shown in Gmail (web and apps) and caches
 *   it; its User-Agent ends `(via ggpht.com GoogleImageProxy)` (widely documented, e.g. ua-parser
 *   and browscap list it), and the fetch happens at delivery or first display, not per reading.
 * - Apple Mail Privacy Protection preloads every remote image at delivery through Apple's relays,
 *   whether or not the message is opened. Its fetches carry the bare User-Agent `Mozilla/5.0`
 *   (no platform or engine, which no browser sends), the signature ESPs use to tell them apart;
 *   a fetch from Apple's own registered block 17.0.0.0/8 is taken as Apple's too. Apple's Private
 *   Relay egress list is too large (and changes too often) to ship in an edge script.
 */
export type Prefetcher = 'apple_mpp' | 'gmail_proxy';

const GMAIL_PROXY = /GoogleImageProxy|via ggpht\.com/i;
const APPLE_BLOCK = /^17\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export function prefetcherOf(userAgent: string | undefined, ip: string | undefined): Prefetcher | null {
  const agent = (userAgent ?? '').trim();
  if (GMAIL_PROXY.test(agent)) return 'gmail_proxy';
  if (agent === 'Mozilla/5.0' || (ip !== undefined && APPLE_BLOCK.test(ip))) return 'apple_mpp';
  return null;
}
