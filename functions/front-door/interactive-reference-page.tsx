import { raw } from 'hono/html';

/** Where the renderer's script is served from: this service, so the reference works offline. */
export const REFERENCE_SCRIPT_PATH = '/docs/assets/api-reference.js';

const SYSTEM_FONTS = `:root, .light-mode, .dark-mode, .scalar-app {
  --scalar-font: system-ui, -apple-system, "Segoe UI", sans-serif;
  --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, monospace;
}`;

/** JSON placed inside a <script>: `<` escaped, so no value can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * `/docs`: the API reference rendered in the browser from the OpenAPI document by Scalar's API
 * reference (its standalone bundle, served by this service). Configured to stay on this origin: no
 * web fonts, no telemetry, no proxy (its "Test request" calls the API directly, same origin).
 * Without JavaScript, the page points to the server-rendered reference.
 */
export function InteractiveReferencePage(props: {
  nonce: string;
  links: { openapi: string; plain: string; console: string; guides: string };
}) {
  const configuration = {
    url: props.links.openapi,
    slug: 'platform-api',
    title: 'Customer Intelligence Platform API',
    withDefaultFonts: false,
    // The bundle's theme still names its web fonts (fetched from fonts.scalar.com) until the document
    // has loaded; system fonts from the start keep the page from asking for them at all.
    customCss: SYSTEM_FONTS,
    telemetry: false,
    // Its AI assistant calls Scalar's servers (through their proxy): not for a self-hosted reference.
    agent: { disabled: true },
    showDeveloperTools: 'never',
    hideClientButton: false,
    documentDownloadType: 'json',
    authentication: { preferredSecurityScheme: 'ApiKeyHeader' },
    metaData: { title: 'API reference · Customer Intelligence Platform' },
  };
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>API reference · Customer Intelligence Platform</title>
      </head>
      <body>
        <noscript>
          <p>
            This reference needs JavaScript. Read <a href={props.links.plain}>the same reference without script</a> or
            the <a href={props.links.openapi}>OpenAPI document</a>, and the <a href={props.links.guides}>guides</a>; get
            an API key in the <a href={props.links.console}>console</a>.
          </p>
        </noscript>
        <div id="api-reference" />
        <script nonce={props.nonce} src={REFERENCE_SCRIPT_PATH} />
        <script nonce={props.nonce}>
          {raw(`Scalar.createApiReference('#api-reference', ${scriptJson(configuration)});`)}
        </script>
      </body>
    </html>
  );
}
