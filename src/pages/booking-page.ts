/**
 * The public booking page (/book/{slug}): server-rendered profile, then a small script that asks
 * the availability API for the next 14 days in the browser's own time zone, lets the visitor pick
 * a day and a slot, and confirms with name and email. No external asset; the one script and the
 * one style element run by nonce (bookingPagePolicy). Every value from the database is escaped.
 */
export interface BookingPageProfile {
  slug: string;
  name: string;
  title: string | null;
  organization_name: string;
  duration: number;
  timezone: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);
}

/** Scripts and styles of this response only (by nonce); requests to this origin only; no framing. */
export function bookingPagePolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f6f7f9}
main{max-width:44rem;margin:0 auto;padding:1.25rem}
header{background:#fff;border-radius:.75rem;padding:1.25rem;margin-bottom:1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{font-size:1.5rem;margin:0 0 .25rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
section{background:#fff;border-radius:.75rem;padding:1.25rem;margin-bottom:1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.muted{color:#555}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(7.5rem,1fr));gap:.5rem}
button{font:inherit;border:2px solid #1d4ed8;border-radius:.5rem;padding:.6rem .5rem;background:#fff;color:#1d4ed8;cursor:pointer;min-height:2.75rem}
button[aria-pressed=true],button.primary{background:#1d4ed8;color:#fff}
button:disabled{border-color:#bbb;color:#888;cursor:not-allowed}
button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,textarea{font:inherit;width:100%;padding:.6rem;border:1px solid #888;border-radius:.5rem}
.error{color:#b91c1c;font-weight:600}
.req{color:#b91c1c}
[hidden]{display:none!important}
`;

/** Runs in the browser. Reads the slug from the page, talks only to this origin. */
const SCRIPT = `
(function () {
  var root = document.getElementById('booking');
  var slug = root.getAttribute('data-slug');
  var tz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  var days = document.getElementById('days');
  var slotsBox = document.getElementById('slots-section');
  var slotsList = document.getElementById('slots');
  var form = document.getElementById('details');
  var status = document.getElementById('status');
  var chosen = null;
  var byDay = {};
  document.getElementById('tz').textContent = tz;
  function say(text, isError) { status.textContent = text; status.className = isError ? 'error' : ''; }
  function dayLabel(date) {
    var d = new Date(date + 'T12:00:00Z');
    return d.toLocaleDateString(undefined, { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' });
  }
  function pressed(container, button) {
    Array.prototype.forEach.call(container.querySelectorAll('button'), function (b) { b.setAttribute('aria-pressed', String(b === button)); });
  }
  function api(path, init) {
    return fetch('/api/v1/booking/' + encodeURIComponent(slug) + path, init).then(function (r) {
      return r.json().then(function (body) { return { status: r.status, body: body }; });
    });
  }
  function load() {
    say('Loading free times…');
    var today = new Date().toLocaleDateString('en-CA', { timeZone: tz });
    var end = new Date(Date.parse(today + 'T00:00:00Z') + 13 * 86400000).toISOString().slice(0, 10);
    return api('/availability?from=' + today + '&to=' + end + '&tz=' + encodeURIComponent(tz)).then(function (res) {
      if (res.status !== 200) { say('Could not load free times. Please try again later.', true); return; }
      byDay = {};
      res.body.data.slots.forEach(function (slot) { (byDay[slot.start.slice(0, 10)] = byDay[slot.start.slice(0, 10)] || []).push(slot); });
      days.textContent = '';
      for (var i = 0; i < 14; i++) {
        var date = new Date(Date.parse(today + 'T00:00:00Z') + i * 86400000).toISOString().slice(0, 10);
        var b = document.createElement('button');
        b.type = 'button';
        b.setAttribute('data-date', date);
        b.setAttribute('aria-pressed', 'false');
        var count = (byDay[date] || []).length;
        b.textContent = dayLabel(date);
        b.setAttribute('aria-label', dayLabel(date) + ', ' + (count ? count + ' free times' : 'no free times'));
        b.disabled = count === 0;
        b.addEventListener('click', pickDay);
        days.appendChild(b);
      }
      say(Object.keys(byDay).length ? 'Pick a day.' : 'No free times in the next two weeks.');
    });
  }
  function pickDay(event) {
    var button = event.currentTarget;
    pressed(days, button);
    var list = byDay[button.getAttribute('data-date')] || [];
    slotsList.textContent = '';
    list.forEach(function (slot) {
      var b = document.createElement('button');
      b.type = 'button';
      b.setAttribute('aria-pressed', 'false');
      b.setAttribute('data-start', slot.start);
      b.textContent = slot.start.slice(11, 16);
      b.addEventListener('click', function () { chosen = slot; pressed(slotsList, b); form.hidden = false; document.getElementById('chosen').textContent = dayLabel(slot.start.slice(0, 10)) + ' ' + slot.start.slice(11, 16) + '–' + slot.end.slice(11, 16) + ' (' + tz + ')'; document.getElementById('name').focus(); });
      slotsList.appendChild(b);
    });
    slotsBox.hidden = false;
    form.hidden = true;
    say(list.length + ' free times on ' + dayLabel(button.getAttribute('data-date')) + '.');
    slotsList.querySelector('button') && slotsList.querySelector('button').focus();
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    if (!chosen) return;
    var data = new FormData(form);
    var body = { start: chosen.start, end: chosen.end, name: data.get('name'), email: data.get('email') };
    ['company', 'phone', 'notes'].forEach(function (k) { if (data.get(k)) body[k] = data.get(k); });
    var submit = document.getElementById('submit');
    submit.disabled = true;
    say('Booking…');
    api('/confirm', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(function (res) {
      submit.disabled = false;
      if (res.status === 201) {
        document.getElementById('picker').hidden = true;
        var done = document.getElementById('done');
        document.getElementById('done-when').textContent = dayLabel(chosen.start.slice(0, 10)) + ' ' + chosen.start.slice(11, 16) + '–' + chosen.end.slice(11, 16) + ' (' + tz + ')';
        done.hidden = false;
        done.focus();
        say('Booked.');
      } else if (res.status === 409) {
        say('Sorry, that time was just taken. Please pick another.', true);
        form.hidden = true; slotsBox.hidden = true; load();
      } else {
        say((res.body && res.body.error && res.body.error.message) || 'Booking failed. Please try again.', true);
      }
    }, function () { submit.disabled = false; say('Network error. Please try again.', true); });
  });
  load();
})();
`;

function shell(title: string, nonce: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export function bookingPage(profile: BookingPageProfile, nonce: string): string {
  const name = escapeHtml(profile.name);
  const subtitle = [profile.title, profile.organization_name].filter(Boolean).map((part) => escapeHtml(String(part)));
  return shell(
    `Book a meeting with ${profile.name}`,
    nonce,
    `<div id="booking" data-slug="${escapeHtml(profile.slug)}">
<header>
<h1>Book a meeting with ${name}</h1>
<p class="muted">${subtitle.join(' · ')}</p>
<p class="muted">${profile.duration}-minute meetings. Times are shown in your time zone: <strong id="tz"></strong>.</p>
</header>
<div id="picker">
<section aria-labelledby="days-title">
<h2 id="days-title">1. Pick a day</h2>
<div id="days" class="grid" role="group" aria-labelledby="days-title"></div>
</section>
<section id="slots-section" aria-labelledby="slots-title" hidden>
<h2 id="slots-title">2. Pick a time</h2>
<div id="slots" class="grid" role="group" aria-labelledby="slots-title"></div>
</section>
<form id="details" aria-labelledby="details-title" hidden novalidate>
<section>
<h2 id="details-title">3. Your details</h2>
<p>Time: <strong id="chosen"></strong></p>
<label for="name">Name <span class="req" aria-hidden="true">*</span></label>
<input id="name" name="name" autocomplete="name" required minlength="2" maxlength="100">
<label for="email">Email <span class="req" aria-hidden="true">*</span></label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254">
<label for="company">Company</label>
<input id="company" name="company" autocomplete="organization" maxlength="200">
<label for="phone">Phone</label>
<input id="phone" name="phone" type="tel" autocomplete="tel" maxlength="50">
<label for="notes">What would you like to talk about?</label>
<textarea id="notes" name="notes" rows="3" maxlength="2000"></textarea>
<p><button id="submit" type="submit" class="primary">Confirm booking</button></p>
</section>
</form>
</div>
<section id="done" tabindex="-1" hidden>
<h2>You are booked</h2>
<p>Your meeting with ${name}: <strong id="done-when"></strong>. We will be in touch by email.</p>
</section>
<p id="status" role="status" aria-live="polite"></p>
</div>
<script nonce="${nonce}">${SCRIPT}</script>`,
  );
}

export function bookingNotFoundPage(nonce: string): string {
  return shell(
    'Booking page not found',
    nonce,
    '<section><h1>Booking page not found</h1><p>There is no booking page at this address, or it is switched off.</p></section>',
  );
}
