/**
 * The page a click link shows instead of a bare redirect when its destination is not on the
 * sending organization's link domains (modules/tracking/link-domains.ts): it names the host and
 * the full address, and the reader follows the link themselves, as mail and chat products do
 * for outside links. Nothing runs on it: one style element by nonce, no script, no framing.
 * Small and dependency-free: the edge Worker renders it.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeText = (value: string) => value.replace(/[&<>"']/g, (char) => ESCAPES[char]);

export function interstitialPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

export function linkInterstitialPage(target: string, nonce: string): string {
  const host = new URL(target).host;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<title>You are leaving for ${escapeText(host)}</title>
<style nonce="${nonce}">body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f6f7f9}main{max-width:36rem;margin:3rem auto;padding:1.5rem;background:#fff;border-radius:.75rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}code{word-break:break-all;display:block;padding:.75rem;background:#f0f1f4;border-radius:.5rem}a.go{display:inline-block;margin-top:1rem;padding:.6rem 1rem;background:#1f5fbf;color:#fff;border-radius:.5rem;text-decoration:none}</style>
</head><body><main>
<h1>This link leads to another site</h1>
<p>The link you followed goes to <strong>${escapeText(host)}</strong>, a site its sender has not listed as their own. Continue only if you trust it.</p>
<code>${escapeText(target)}</code>
<a class="go" href="${escapeText(target)}" rel="noopener noreferrer nofollow">Continue to ${escapeText(host)}</a>
</main></body></html>`;
}
