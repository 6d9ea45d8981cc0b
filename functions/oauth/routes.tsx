import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../http/env.js';
import { refuseUnstorableText } from '../http/storable-text-guard.js';
import { requireFormBody } from '../web/form-body.js';
import { currentSession, formValue, headerFor, postIsTrusted, renderPage } from '../web/browser.js';
import { ConsentPage } from './consent-page.js';
import { MessagePage } from '../web/layout.js';
import type { ConsoleSession } from '../identity/console-sessions.js';
import {
  AUTHORIZATION_PARAMETERS,
  authorizationResponseUrl,
  parametersFrom,
  RefusedAuthorizationRequest,
  validateAuthorizationRequest,
  type AuthorizationParameters,
  type AuthorizationRequest,
} from './authorization-request.js';
import { authenticateClient, registerClient } from './clients.js';
import { createGrantWithCode, redeemCode, refreshGrant, revokeToken } from './grants.js';
import { authorizationServerMetadata, METADATA_PATHS, OAUTH_PATHS, protectedResourceMetadata } from './metadata.js';
import { NO_STORE, OAuthError, oauthErrorResponse } from './oauth-error.js';
import { protectedResources, resolveResource } from './resources.js';
import { narrowToRole, SCOPE_DESCRIPTIONS } from './scope-policy.js';

type Ctx = Context<AppEnv>;

/** Dynamic client registration: 5 per minute per IP (spec, Limits). */
const REGISTRATIONS_PER_MINUTE = { limit: 5, windowSeconds: 60 };

/**
 * The OAuth 2.1 authorization server (spec, Authentication 3): discovery, registration, authorize
 * with its consent page, token, revocation. These speak the OAuth RFCs' formats, not the API's
 * `{data}`/`{error}` envelope, because OAuth clients are written against the RFCs.
 */
export function oauthRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Browser-based clients (an MCP inspector) read metadata and call the token endpoint cross-origin; no cookies are involved.
  const openCors = cors({
    origin: '*',
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type', 'MCP-Protocol-Version'],
    maxAge: 600,
  });
  for (const path of [
    METADATA_PATHS.authorizationServer,
    `${METADATA_PATHS.protectedResource}/*`,
    METADATA_PATHS.protectedResource,
    OAUTH_PATHS.token,
    OAUTH_PATHS.register,
    OAUTH_PATHS.revoke,
  ]) {
    app.use(path, openCors);
  }
  // Text the database cannot store is refused before any lookup (functions/http/storable-text-guard.ts):
  // the consent endpoint with its error page, the others in OAuth's own JSON.
  app.use(
    OAUTH_PATHS.authorize,
    refuseUnstorableText((c, problem) => errorPage(c, 400, `${problem.field}: ${problem.problem}.`)),
  );
  // The consent form's POST: another body is a 415 or 400 page, not a failed read.
  app.use(
    OAUTH_PATHS.authorize,
    requireFormBody((c, status, text) => errorPage(c, status, text)),
  );
  for (const path of [OAUTH_PATHS.token, OAUTH_PATHS.register, OAUTH_PATHS.revoke]) {
    app.use(
      path,
      refuseUnstorableText((_c, problem) =>
        oauthErrorResponse(new OAuthError('invalid_request', `${problem.field}: ${problem.problem}.`)),
      ),
    );
  }

  app.get(METADATA_PATHS.authorizationServer, (c) => {
    const { config } = c.get('services');
    return c.json(authorizationServerMetadata(config.publicUrl, config.SERVICE_DOCUMENTATION_URL), 200, {
      'Cache-Control': 'public, max-age=300',
    });
  });
  for (const [path, resource] of [
    [METADATA_PATHS.protectedResource, 'api'],
    [METADATA_PATHS.apiResource, 'api'],
    [METADATA_PATHS.mcpResource, 'mcp'],
  ] as const) {
    app.get(path, (c) => {
      const { config } = c.get('services');
      return c.json(protectedResourceMetadata(config.publicUrl, resource, config.SERVICE_DOCUMENTATION_URL), 200, {
        'Cache-Control': 'public, max-age=300',
      });
    });
  }

  app.post(OAUTH_PATHS.register, async (c) => {
    const services = c.get('services');
    const limited = await services.limiter.limit(`oauth-register:ip:${c.get('clientIp')}`, REGISTRATIONS_PER_MINUTE);
    if (!limited.success) {
      const retryAfter = Math.max(1, Math.ceil((limited.reset - services.clock.now().getTime()) / 1000));
      return oauthErrorResponse(
        new OAuthError(
          'rate_limited',
          `At most ${REGISTRATIONS_PER_MINUTE.limit} registrations per minute per address. Retry after ${retryAfter} s.`,
          429,
          { 'Retry-After': String(retryAfter) },
        ),
        {
          retry_after_seconds: retryAfter,
        },
      );
    }
    return respond(async () => {
      if (!/^application\/json\b/i.test(c.req.header('content-type') ?? ''))
        throw new OAuthError(
          'invalid_client_metadata',
          'The registration request must be JSON (Content-Type: application/json).',
        );
      let metadata: unknown;
      try {
        metadata = await c.req.json();
      } catch {
        throw new OAuthError('invalid_client_metadata', 'The request body is not valid JSON.');
      }
      const registered = await registerClient(services.db, services.config.publicUrl, metadata, services.clock.now());
      return new Response(JSON.stringify(registered), {
        status: 201,
        headers: { 'Content-Type': 'application/json', ...NO_STORE },
      });
    });
  });

  app.get(OAUTH_PATHS.authorize, async (c) => {
    const duplicate = duplicatedParameter(c);
    if (duplicate) return errorPage(c, 400, `The parameter ${duplicate} appears more than once.`);
    return authorize(
      c,
      parametersFrom((name) => c.req.query(name)),
      null,
    );
  });

  app.post(OAUTH_PATHS.authorize, async (c) => {
    const form = await c.req.formData();
    return authorize(
      c,
      parametersFrom((name) => formValue(form, name)),
      form,
    );
  });

  app.post(OAUTH_PATHS.token, (c) =>
    respond(async () => {
      const services = c.get('services');
      const form = await formBody(c);
      const client = await authenticateClient(
        services.db,
        services.config.publicUrl,
        form,
        c.req.header('authorization'),
      );
      const grantType = form.get('grant_type');
      if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
        throw new OAuthError('unsupported_grant_type', `grant_type "${grantType}" is not supported.`);
      if (!client.grantTypes.includes(grantType))
        throw new OAuthError('unauthorized_client', `The client did not register the ${grantType} grant.`);
      const resourceParam = form.get('resource');
      const resource =
        resourceParam === null ? null : resolveResource(resourceParam, protectedResources(services.config.publicUrl));
      const common = {
        client,
        resource,
        now: services.clock.now(),
        accessTtlSeconds: services.config.OAUTH_ACCESS_TOKEN_TTL_SECONDS ?? 3600,
      };
      const tokens =
        grantType === 'authorization_code'
          ? await redeemCode(services.db, services.credentials.oauth, {
              ...common,
              code: required(form, 'code'),
              redirectUri: form.get('redirect_uri'),
              codeVerifier: form.get('code_verifier'),
            })
          : await refreshGrant(services.db, services.credentials.oauth, {
              ...common,
              refreshToken: required(form, 'refresh_token'),
              scope: form.get('scope'),
            });
      return new Response(JSON.stringify(tokens), {
        status: 200,
        headers: { 'Content-Type': 'application/json', ...NO_STORE },
      });
    }),
  );

  app.post(OAUTH_PATHS.revoke, (c) =>
    respond(async () => {
      const services = c.get('services');
      const form = await formBody(c);
      const client = await authenticateClient(
        services.db,
        services.config.publicUrl,
        form,
        c.req.header('authorization'),
      );
      await revokeToken(services.db, services.credentials.oauth, client, required(form, 'token'), services.clock.now());
      return new Response(null, { status: 200, headers: NO_STORE });
    }),
  );

  return app;
}

/** Run an OAuth endpoint; its failures are the RFC's JSON errors. Anything else is a 500 in the same form. */
async function respond(handle: () => Promise<Response>): Promise<Response> {
  try {
    return await handle();
  } catch (e) {
    if (e instanceof OAuthError) return oauthErrorResponse(e);
    throw e;
  }
}

/** Token and revocation requests are form-encoded, each parameter at most once (RFC 6749 3.2). */
async function formBody(c: Ctx): Promise<URLSearchParams> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(c.req.header('content-type') ?? '')) {
    throw new OAuthError('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
  }
  const form = new URLSearchParams(await c.req.text());
  const seen = new Set<string>();
  for (const key of form.keys()) {
    if (seen.has(key)) throw new OAuthError('invalid_request', `The parameter ${key} appears more than once.`);
    seen.add(key);
  }
  return form;
}

function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (!value) throw new OAuthError('invalid_request', `${name} is required.`);
  return value;
}

function duplicatedParameter(c: Ctx): string | undefined {
  const all = c.req.queries();
  return AUTHORIZATION_PARAMETERS.find((name) => (all[name]?.length ?? 0) > 1);
}

/**
 * Both halves of authorize: GET shows consent, POST (the consent form) decides. The request is
 * validated in full each time, from the query or the form, so the form carries no state of its own.
 */
async function authorize(c: Ctx, parameters: AuthorizationParameters, form: FormData | null): Promise<Response> {
  const services = c.get('services');
  const issuer = services.config.publicUrl;
  let request: AuthorizationRequest;
  try {
    request = await validateAuthorizationRequest(services.db, issuer, protectedResources(issuer), parameters);
  } catch (e) {
    // Never a redirect to the client here: no signed-in member has approved anything yet.
    if (e instanceof RefusedAuthorizationRequest)
      return errorPage(c, 400, e.code ? `The application's request is not valid (${e.code}): ${e.message}` : e.message);
    throw e;
  }
  const session = await currentSession(c);
  if (!session) {
    if (form) return errorPage(c, 403, 'Your console session ended. Start again from the application.');
    const url = new URL(c.req.url);
    return c.redirect(`/console/sign-in?return_to=${encodeURIComponent(`${url.pathname}${url.search}`)}`, 302);
  }
  if (session.memberships.length === 0)
    return errorPage(
      c,
      403,
      'You are not a member of any workspace of this service, so there is nothing to authorize.',
      session,
    );
  if (!form) return consentPage(c, session, request);

  if (!(await postIsTrusted(c, session, form)))
    return errorPage(
      c,
      403,
      'The consent form expired or came from another site. Start again from the application.',
      session,
    );
  const back = (result: { code: string } | OAuthError) =>
    c.redirect(authorizationResponseUrl(request.redirectUri, issuer, request.state, result), 303);
  if (formValue(form, 'decision') !== 'approve')
    return back(new OAuthError('access_denied', 'The member denied the request.'));
  const membership = session.memberships.find((m) => m.workspaceId === formValue(form, 'workspace_id'));
  if (!membership) return errorPage(c, 400, 'Choose one of your workspaces.', session);
  const { granted } = narrowToRole(request.scopes, membership.role);
  if (granted.length === 0)
    return back(new OAuthError('invalid_scope', `Your role (${membership.role}) allows none of the requested scopes.`));
  const code = await createGrantWithCode(services.db, {
    workspaceId: membership.workspaceId,
    userId: session.userId,
    clientId: request.client.id,
    scopes: granted,
    resource: request.resource,
    redirectUri: request.redirectUri,
    redirectUriSent: parameters.redirect_uri !== undefined,
    codeChallenge: request.codeChallenge,
    now: services.clock.now(),
  });
  return back({ code });
}

async function consentPage(c: Ctx, session: ConsoleSession, request: AuthorizationRequest): Promise<Response> {
  const header = await headerFor(c, session);
  const workspaces = session.memberships.map((m) => {
    const { granted, withheld } = narrowToRole(request.scopes, m.role);
    return {
      id: m.workspaceId,
      name: m.workspaceName,
      role: m.role,
      granted: granted.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] })),
      withheld,
    };
  });
  const redirect = new URL(request.redirectUri);
  return renderPage(
    c,
    (nonce) => (
      <ConsentPage
        nonce={nonce}
        session={header}
        action={OAUTH_PATHS.authorize}
        clientName={request.client.name}
        redirectHost={redirect.host}
        resource={request.resource}
        workspaces={workspaces}
        parameters={request.parameters}
      />
    ),
    { formTargets: [redirect.origin] },
  );
}

async function errorPage(c: Ctx, status: 400 | 403 | 415, text: string, session?: ConsoleSession): Promise<Response> {
  const header = session ? await headerFor(c, session) : undefined;
  return renderPage(
    c,
    (nonce) => <MessagePage nonce={nonce} title="Authorization failed" message={text} session={header} />,
    { status },
  );
}
