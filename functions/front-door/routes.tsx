import { type Context, Hono } from 'hono';
import { compress } from 'hono/compress';
import { ApiError } from '../../platform/errors.js';
import { renderPage } from '../web/browser.js';
import { API_PREFIX, type AppEnv } from '../http/env.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import { GUIDES, GUIDES_PATH, isGuidePage } from '../guides.js';
import { GuidesPage } from './guides-page.js';
import { protectedResourceMetadataUrl } from '../oauth/index.js';
import type { OperationRegistry } from '../registry.js';
import { LandingPage } from './landing-page.js';
import { InteractiveReferencePage, REFERENCE_SCRIPT_PATH } from './interactive-reference-page.js';
import { ReferencePage, referenceFrom } from './reference-page.js';

export const DOCS_PATH = '/docs';
export const PLAIN_DOCS_PATH = '/docs/plain';

/** Where a person or a client starts: absolute URLs, so they work pasted anywhere. */
export function pointers(publicUrl: string) {
  return {
    console: `${publicUrl}/console`,
    docs: `${publicUrl}${DOCS_PATH}`,
    guides: `${publicUrl}${GUIDES_PATH}`,
    openapi: `${publicUrl}${API_PREFIX}/openapi.json`,
    mcp: `${publicUrl}${API_PREFIX}/mcp`,
  };
}

export function frontDoorRoutes(registry: OperationRegistry): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let reference: { publicUrl: string; value: ReturnType<typeof referenceFrom> } | undefined;

  app.get('/', (c) => {
    const links = pointers(c.get('services').config.publicUrl);
    return renderPage(c, (nonce) => <LandingPage nonce={nonce} links={links} />);
  });

  const plainReference = (c: Context<AppEnv>) => {
    const publicUrl = c.get('services').config.publicUrl;
    if (reference?.publicUrl !== publicUrl)
      reference = { publicUrl, value: referenceFrom(buildOpenApiDocument(registry, publicUrl)) };
    const value = reference.value;
    return renderPage(c, (nonce) => <ReferencePage nonce={nonce} reference={value} links={pointers(publicUrl)} />);
  };

  // Scalar's renderer where this runtime has its script (Node); the server-rendered reference where
  // it does not (a Worker carries no node_modules), so /docs always answers with the reference.
  app.get(DOCS_PATH, async (c) => {
    if (!(await c.get('services').assets.read('api-reference.js'))) return plainReference(c);
    const links = { ...pointers(c.get('services').config.publicUrl), plain: PLAIN_DOCS_PATH };
    return renderPage(c, (nonce) => <InteractiveReferencePage nonce={nonce} links={links} />, {
      connectsToSelf: true,
      scriptInjectsStyles: true,
    });
  });

  // The same reference without any script, rendered here from the same document as openapi.json.
  app.get(PLAIN_DOCS_PATH, plainReference);

  app.get(GUIDES_PATH, (c) => {
    const links = pointers(c.get('services').config.publicUrl);
    return renderPage(c, (nonce) => <GuidesPage nonce={nonce} guides={GUIDES} links={links} />);
  });

  // A guide as its Markdown text, read from the repository's docs/guides/. Only the listed guides are
  // served, so a name never reaches the file system unchecked.
  app.get(`${GUIDES_PATH}/:page`, async (c) => {
    const page = c.req.param('page');
    if (!isGuidePage(page)) throw new ApiError('not_found', `There is no guide ${page}; ${GUIDES_PATH} lists them.`);
    const text = await c.get('services').assets.read(`guides/${page}`);
    if (!text)
      throw new ApiError(
        'not_found',
        `This server does not carry the guides: read docs/guides/${page} in the repository.`,
        {
          guide: `docs/guides/${page}`,
        },
      );
    return c.body(text as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': 'text/plain; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'public, max-age=300',
    });
  });

  // 3.5 MB as it is, under 1 MB gzipped: compressed for a client that accepts it.
  app.get(REFERENCE_SCRIPT_PATH, compress(), async (c) => {
    const script = await c.get('services').assets.read('api-reference.js');
    if (!script) throw new ApiError('not_found', 'This server does not serve the reference renderer.');
    return c.body(script as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'public, max-age=3600',
    });
  });

  // The API's root without a credential: the 401 every other path gives, with where to start.
  for (const path of [API_PREFIX, `${API_PREFIX}/`])
    app.get(path, async (c, next) => {
      if (c.req.header('x-api-key') || c.req.header('authorization')) return next();
      const { publicUrl } = c.get('services').config;
      throw new ApiError(
        'unauthenticated',
        'This is the Customer Intelligence Platform API. Send an API key (X-API-Key) or an OAuth bearer token; get one in the console, and read the reference or the OpenAPI document first.',
        pointers(publicUrl),
        {
          headers: {
            'WWW-Authenticate': `Bearer resource_metadata="${protectedResourceMetadataUrl(publicUrl, 'api')}"`,
          },
        },
      );
    });

  return app;
}
