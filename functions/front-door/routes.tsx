import { Hono } from 'hono';
import { ApiError } from '../../platform/errors.js';
import { renderPage } from '../web/browser.js';
import { API_PREFIX, type AppEnv } from '../http/env.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import { protectedResourceMetadataUrl } from '../oauth/index.js';
import type { OperationRegistry } from '../registry.js';
import { LandingPage } from './landing-page.js';
import { ReferencePage, referenceFrom } from './reference-page.js';

export const DOCS_PATH = '/docs';

/** Where a person or a client starts: absolute URLs, so they work pasted anywhere. */
export function pointers(publicUrl: string) {
  return {
    console: `${publicUrl}/console`,
    docs: `${publicUrl}${DOCS_PATH}`,
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

  // Rendered here from the same document as openapi.json: no renderer this install can serve
  // offline was available (see the README), and a server-rendered page needs no script at all.
  app.get(DOCS_PATH, (c) => {
    const publicUrl = c.get('services').config.publicUrl;
    if (reference?.publicUrl !== publicUrl)
      reference = { publicUrl, value: referenceFrom(buildOpenApiDocument(registry, publicUrl)) };
    const value = reference.value;
    return renderPage(c, (nonce) => <ReferencePage nonce={nonce} reference={value} links={pointers(publicUrl)} />);
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
