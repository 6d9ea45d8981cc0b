import type { MiddlewareHandler } from 'hono';
import { ApiError, isApiError } from '../../platform/errors.js';
import { authenticate } from '../identity/authenticate.js';
import { lastUsedRecorder } from '../identity/credential-cache.js';
import type { ResourceKind } from '../identity/oauth-tokens.js';
import { protectedResourceMetadataUrl } from '../oauth/index.js';
import { API_PREFIX, type AppEnv } from './env.js';

/**
 * Resolve the credential to a Caller before any operation runs; failures render as 401/403. A 401
 * names where to learn how to get a credential (RFC 9728 5.1, required by the MCP authorization
 * spec), so an MCP client can discover the authorization server from its first refused request.
 */
export const requireCaller: MiddlewareHandler<AppEnv> = async (c, next) => {
  const services = c.get('services');
  const resource: ResourceKind = c.req.path === `${API_PREFIX}/mcp` ? 'mcp' : 'api';
  try {
    const caller = await authenticate(
      services.db,
      services.credentials,
      { apiKeyHeader: c.req.header('x-api-key'), authorizationHeader: c.req.header('authorization'), resource },
      services.clock.now(),
    );
    c.set('caller', caller);
  } catch (error) {
    if (isApiError(error) && error.status === 401) {
      const challenge = [
        `Bearer resource_metadata="${protectedResourceMetadataUrl(services.config.publicUrl, resource)}"`,
        ...(error.code === 'unauthenticated' ? [] : ['error="invalid_token"']),
      ].join(', ');
      throw new ApiError(error.code, error.message, error.details, {
        headers: { ...error.headers, 'WWW-Authenticate': challenge },
      });
    }
    throw error;
  }
  await next();
  // last_used_at, written behind: after the response is produced, never awaited by it.
  const flushing = lastUsedRecorder.flushInBackground(services.db, (error) =>
    services.log.warn('writing last_used_at failed', { error }),
  );
  if (flushing) {
    services.pendingWork.push(flushing);
    void flushing.finally(() => services.pendingWork.splice(services.pendingWork.indexOf(flushing), 1));
  }
};
