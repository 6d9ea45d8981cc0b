import type { OpenAPIHono } from '@hono/zod-openapi';
import { ApiError } from '../../platform/errors.js';
import { API_PREFIX, type AppEnv } from './env.js';
import { renderError } from './errors.js';

/**
 * Routes the API once had and retired (spec, Versioning 5; CHANGELOG.md, Removed). They answer
 * `404 not_found` like any unknown route, but `details` name what replaced them, so a client written
 * against the old surface is told where to go instead of a bare "No route".
 */
const RETIRED_ROUTES: readonly {
  method: 'get' | 'post';
  path: string;
  replacement: { method: string; path: string; with?: Record<string, string> };
  hint: string;
}[] = [
  {
    method: 'post',
    path: '/search',
    replacement: { method: 'POST', path: '/search/query', with: { mode: 'fuzzy' } },
    hint: 'POST /search is retired: send the same question to POST /search/query with "mode": "fuzzy".',
  },
];

/** Mounted after the credential check: a retired route is refused the same way as any other route. */
export function mountRetiredRoutes(app: OpenAPIHono<AppEnv>): void {
  for (const route of RETIRED_ROUTES) {
    app.on(route.method.toUpperCase(), `${API_PREFIX}${route.path}`, (c) =>
      renderError(
        c,
        new ApiError('not_found', route.hint, {
          method: route.method.toUpperCase(),
          path: `${API_PREFIX}${route.path}`,
          retired: true,
          use: {
            method: route.replacement.method,
            path: `${API_PREFIX}${route.replacement.path}`,
            ...route.replacement.with,
          },
        }),
      ),
    );
  }
}
