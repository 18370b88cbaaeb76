/**
 * The HTML a sent message carries: the body (plain text escaped, its URLs made links; or the
 * caller's HTML), every http(s) link rewritten to the tracking click redirect, the open pixel at
 * the end, and for mail that is not a reply an unsubscribe link (never rewritten, so a click on it
 * is not counted as interest). Tokens are minted by modules/tracking/token.ts, so opens and clicks
 * become intent signals on the recipient's lead through the events queue.
 */
import { isWebUrl } from '../../core/web-url';
import { isDirectTarget } from '../tracking';
import { signTrackingToken, type TrackingSecrets, verifyTrackingToken } from '../tracking';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

/**
 * A URL in plain text: an apostrophe may be inside it (`o'brien`), never last, and neither may
 * the punctuation that usually follows one.
 */
const URL_IN_TEXT = /https?:\/\/[^\s<>"]*[^\s<>"'.,;:!?)]/g;

/**
 * Plain text as HTML: escaped, URLs as links, line breaks kept. URLs are found in the text as
 * written, then escaped: found after escaping, `<https://…/demo>` linked to `…/demo&gt`.
 */
export function textToHtml(text: string): string {
  let html = '';
  let last = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const url = escapeHtml(match[0]);
    html += `${escapeHtml(text.slice(last, match.index))}<a href="${url}">${url}</a>`;
    last = match.index + match[0].length;
  }
  html += escapeHtml(text.slice(last));
  return `<div>${html.replace(/\r?\n/g, '<br>\n')}</div>`;
}

const NAMED: Record<string, string> = { nbsp: '\u00a0', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The plain-text part of an HTML message, as a text-only client (and a spam filter) reads it:
 * head, style, script and comments gone; a line per <br>, a blank line after each paragraph,
 * heading, block and table row, a line per list item; tags dropped; character references decoded
 * (after the tags, so `&lt;b&gt;` stays text); spaces collapsed.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|tr|table|ul|ol|blockquote|section|article|header|footer)\s*>/gi, '\n\n')
    .replace(/<\/li\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] !== '#') return NAMED[name.toLowerCase()] ?? whole;
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const HREF = /href\s*=\s*(["'])(https?:\/\/[^"']+)\1/gi;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", '#x27': "'" };

/** An href as the browser reads it: the character references escapeHtml writes, decoded. */
function decodeEntities(url: string): string {
  return url.replace(
    /&(amp|lt|gt|quot|apos|#39|#x27);/gi,
    (whole, name: string) => ENTITIES[name.toLowerCase()] ?? whole,
  );
}

/**
 * The address a browser would open for an href, when the click redirect can send the reader
 * there (the one URL rule, core/web-url.ts): as written, or as a browser reads it (the tabs and
 * line breaks dropped, spaces percent-encoded: `price list.pdf` → `price%20list.pdf`). Else null:
 * the link is left as written, untracked, rather than rewritten to a click link that would
 * refuse it (a host name with `_`, say).
 */
function clickTarget(href: string): string | null {
  const target = decodeEntities(href);
  if (isWebUrl(target)) return target;
  try {
    const normalized = new URL(target.trim()).href;
    return isWebUrl(normalized) ? normalized : null;
  } catch {
    return null;
  }
}

export interface Tracking {
  secrets: TrackingSecrets;
  /** Where the public tracking routes answer (the origin the request reached). */
  origin: string;
  orgId: number;
  leadId: number;
  campaign: string;
  /**
   * The organization's link domains: a link to one of them redirects at once, any other shows
   * the click interstitial naming its destination (modules/tracking/link-domains.ts; claim d).
   */
  linkDomains: readonly string[];
}

/** Rewrites every http(s) href to a click redirect and appends the open pixel. */
export async function trackHtml(html: string, tracking: Tracking): Promise<string> {
  const claims = { organizationId: tracking.orgId, leadId: tracking.leadId, campaign: tracking.campaign };
  const targets = new Map<string, string>();
  for (const match of html.matchAll(HREF)) {
    const target = clickTarget(match[2]);
    if (target && target.length <= 2048 && !targets.has(match[2])) {
      const token = await signTrackingToken(tracking.secrets, {
        ...claims,
        targetUrl: target,
        direct: isDirectTarget(target, tracking.linkDomains),
      });
      targets.set(match[2], `${tracking.origin}/api/v1/track/click/${token}`);
    }
  }
  const rewritten = html.replace(HREF, (whole, quote: string, url: string) => {
    const click = targets.get(url);
    return click ? `href=${quote}${click}${quote}` : whole;
  });
  const open = await signTrackingToken(tracking.secrets, { ...claims, targetUrl: null, direct: false });
  const pixel = `<img src="${tracking.origin}/api/v1/track/open/${open}" width="1" height="1" alt="" style="display:none">`;
  return beforeBodyEnd(rewritten, pixel);
}

/**
 * `addition` at the end of the body: before a whole document's last `</body>` (Outlook's renderer
 * drops what follows `</html>`), else at the end of a fragment.
 */
function beforeBodyEnd(html: string, addition: string): string {
  const end = html.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
  return end < 0 ? `${html}\n${addition}` : `${html.slice(0, end)}\n${addition}\n${html.slice(end)}`;
}

function unsubscribeFooter(unsubscribeUrl: string): string {
  return `<p style="font-size:12px;color:#888888"><a href="${escapeHtml(unsubscribeUrl)}">Unsubscribe</a> from these emails.</p>`;
}

/** The unsubscribe footer (after tracking, so its link is never a click redirect). */
export function withUnsubscribeFooter(html: string, unsubscribeUrl: string): string {
  return beforeBodyEnd(html, unsubscribeFooter(unsubscribeUrl));
}

/** The HTML without the footer withUnsubscribeFooter added for `unsubscribeUrl` (the last one, with its line break). */
export function withoutUnsubscribeFooter(html: string, unsubscribeUrl: string): string {
  const footer = `\n${unsubscribeFooter(unsubscribeUrl)}`;
  const at = html.lastIndexOf(footer);
  return at < 0 ? html : html.slice(0, at) + html.slice(at + footer.length);
}

const OPEN_PIXEL =
  /<img\b[^>]*?\bsrc\s*=\s*(["'])[^"']*?\/api\/v1\/track\/open\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\1[^>]*>/gi;
const CLICK_HREF = /\bhref\s*=\s*(["'])[^"']*?\/api\/v1\/track\/click\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\1/gi;

/**
 * A message's HTML as a user of the organization reads it through the inbox: our open pixels
 * removed and our click links back to their targets (tokens of ours, by their signature; anything
 * else is left as it is). Whoever reads through the API is the sender's side, never the lead: a
 * sent message viewed, or a lead's reply quoting ours (mail clients keep the quoted images),
 * would otherwise load the pixel and count an open, or a click, on the lead.
 */
export async function withoutTracking(html: string, secrets: TrackingSecrets): Promise<string> {
  const tokens = new Set([...html.matchAll(OPEN_PIXEL), ...html.matchAll(CLICK_HREF)].map((match) => match[2]));
  if (tokens.size === 0) return html;
  const claims = new Map(
    await Promise.all([...tokens].map(async (token) => [token, await verifyTrackingToken(secrets, token)] as const)),
  );
  return html
    .replace(OPEN_PIXEL, (whole, _quote: string, token: string) => (claims.get(token) ? '' : whole))
    .replace(CLICK_HREF, (whole, quote: string, token: string) => {
      const target = claims.get(token)?.targetUrl;
      return target ? `href=${quote}${escapeHtml(target)}${quote}` : whole;
    });
}
