/**
 * The hosted web form's pages: the form, its thank-you page and the 404 page. hono/jsx escapes
 * every text and attribute value (form names, labels, messages, the visitor's own input), no
 * external asset is loaded, and the one inline style runs by the response's CSP nonce
 * (webFormPolicy). Mobile first: a single column that fits any viewport from 320 px up.
 */
import type { Child } from 'hono/jsx';

export interface PageField {
  name: string;
  label: string;
  required: boolean;
  type: 'text' | 'email' | 'tel' | 'url';
  autocomplete: string;
  value: string;
  error: string | null;
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem}
.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:1.25rem}
h1{font-size:1.4rem;margin:0 0 1rem}
.field{margin:0 0 1rem}
label{display:block;font-weight:600;margin:0 0 .25rem}
.req{color:#b42318}
input{display:block;width:100%;max-width:100%;padding:.6rem .7rem;font:inherit;border:1px solid #8c959f;border-radius:6px}
input:focus{outline:3px solid #0969da;outline-offset:1px}
input[aria-invalid=true]{border-color:#b42318}
.error{color:#b42318;margin:.25rem 0 0;font-size:.95rem}
.note{color:#57606a;font-size:.9rem;margin:0 0 1rem}
button{width:100%;padding:.75rem;font:inherit;font-weight:600;color:#fff;background:#1f6feb;border:0;border-radius:6px;cursor:pointer}
button:focus{outline:3px solid #0969da;outline-offset:2px}
.hp{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}
.sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);border:0}
`;

/**
 * Nothing but this response's style may apply; no script at all; the form posts only to this
 * origin (and its redirect, followed after the post, to `redirectOrigin`); no framing.
 */
export function webFormPolicy(nonce: string, redirectOrigin?: string | null): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `form-action 'self'${redirectOrigin ? ` ${redirectOrigin}` : ''}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function Layout(props: { title: string; nonce: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
        <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <main>
          <div class="card">{props.children}</div>
        </main>
      </body>
    </html>
  );
}

export function formPage(props: {
  title: string;
  action: string;
  nonce: string;
  timing: string;
  honeypot: string;
  timingField: string;
  fields: PageField[];
}): string {
  const invalid = props.fields.filter((field) => field.error);
  return `<!doctype html>${(
    (
      <Layout title={props.title} nonce={props.nonce}>
        <h1>{props.title}</h1>
        <p class="note">
          Fields marked <span class="req">*</span> are required.
        </p>
        {invalid.length > 0 ? (
          <p class="error" role="alert">
            Please correct the {invalid.length === 1 ? 'field' : `${invalid.length} fields`} below.
          </p>
        ) : null}
        <form method="post" action={props.action} novalidate>
          {props.fields.map((field) => (
            <div class="field">
              <label for={`f-${field.name}`}>
                {field.label}
                {field.required ? (
                  <>
                    {' '}
                    <span class="req" aria-hidden="true">
                      *
                    </span>
                    <span class="sr"> (required)</span>
                  </>
                ) : null}
              </label>
              <input
                id={`f-${field.name}`}
                name={field.name}
                type={field.type}
                autocomplete={field.autocomplete}
                value={field.value}
                maxlength={field.type === 'url' ? 2048 : 254}
                required={field.required}
                aria-required={field.required ? 'true' : undefined}
                aria-invalid={field.error ? 'true' : undefined}
                aria-describedby={field.error ? `e-${field.name}` : undefined}
              />
              {field.error ? (
                <p class="error" id={`e-${field.name}`}>
                  {field.error}
                </p>
              ) : null}
            </div>
          ))}
          <div class="hp" aria-hidden="true">
            <label for="f-hp">Leave this field empty</label>
            <input id="f-hp" name={props.honeypot} type="text" tabindex={-1} autocomplete="off" value="" />
          </div>
          <input type="hidden" name={props.timingField} value={props.timing} />
          <button type="submit">Send</button>
        </form>
      </Layout>
    )
  ).toString()}`;
}

export function thankYouPage(props: { title: string; message: string; nonce: string }): string {
  return `<!doctype html>${(
    (
      <Layout title={props.title} nonce={props.nonce}>
        <h1>Thank you</h1>
        <p role="status">{props.message}</p>
      </Layout>
    )
  ).toString()}`;
}

export function notFoundPage(nonce: string): string {
  return `<!doctype html>${(
    (
      <Layout title="Form not found" nonce={nonce}>
        <h1>Form not found</h1>
        <p>This form does not exist or is no longer available.</p>
      </Layout>
    )
  ).toString()}`;
}
