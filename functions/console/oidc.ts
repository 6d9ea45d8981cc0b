import * as oidc from 'openid-client';
import type { AppConfig } from '../../platform/config.js';

/**
 * Console sign-in through the organisation's OpenID Connect provider: authorization code + PKCE
 * with openid-client, which does discovery, state, nonce and ID token validation. The provider
 * asserts who the person is; what they may see still comes from our membership table.
 */
export interface ConsoleIdentityProvider {
  issuer: URL;
  clientId: string;
  clientSecret: string | undefined;
  /** Plain http to the provider, allowed only outside production (a provider on the developer's machine). */
  allowHttp: boolean;
  fetch: oidc.CustomFetch | undefined;
  /** Discovery, once per process; a failed discovery is retried on the next sign-in. */
  configuration?: Promise<oidc.Configuration>;
}

export type IdentityProviderFetch = oidc.CustomFetch;

export function consoleIdentityProviderFromConfig(
  config: AppConfig,
  fetchImpl: IdentityProviderFetch | undefined,
): ConsoleIdentityProvider | null {
  if (!config.CONSOLE_OIDC_ISSUER || !config.CONSOLE_OIDC_CLIENT_ID) return null;
  return {
    issuer: new URL(config.CONSOLE_OIDC_ISSUER),
    clientId: config.CONSOLE_OIDC_CLIENT_ID,
    clientSecret: config.CONSOLE_OIDC_CLIENT_SECRET,
    allowHttp: config.APP_ENV !== 'production',
    fetch: fetchImpl,
  };
}

/** What must survive the round trip to the provider, kept in a signed, short-lived cookie. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
}

export class IdentityProviderUnavailable extends Error {
  override name = 'IdentityProviderUnavailable';
}

export class SignInRejected extends Error {
  override name = 'SignInRejected';
}

async function configurationOf(provider: ConsoleIdentityProvider): Promise<oidc.Configuration> {
  provider.configuration ??= oidc
    .discovery(
      provider.issuer,
      provider.clientId,
      provider.clientSecret ? { client_secret: provider.clientSecret } : undefined,
      provider.clientSecret ? oidc.ClientSecretBasic(provider.clientSecret) : oidc.None(),
      {
        ...(provider.fetch ? { [oidc.customFetch]: provider.fetch } : {}),
        ...(provider.allowHttp && provider.issuer.protocol === 'http:'
          ? { execute: [oidc.allowInsecureRequests] }
          : {}),
      },
    )
    .catch((e: unknown) => {
      provider.configuration = undefined;
      throw new IdentityProviderUnavailable(
        `The identity provider's discovery failed: ${e instanceof Error ? e.message : String(e)}`,
      );
    });
  const configuration = await provider.configuration;
  if (provider.fetch) configuration[oidc.customFetch] = provider.fetch;
  return configuration;
}

export async function beginSignIn(
  provider: ConsoleIdentityProvider,
  callbackUrl: string,
  returnTo: string,
): Promise<{ url: URL; pending: PendingSignIn }> {
  const configuration = await configurationOf(provider);
  const verifier = oidc.randomPKCECodeVerifier();
  const pending: PendingSignIn = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier, returnTo };
  const url = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: callbackUrl,
    scope: 'openid email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  });
  return { url, pending };
}

/** Redeem the provider's code and return the verified email of the person who signed in. */
export async function completeSignIn(
  provider: ConsoleIdentityProvider,
  currentUrl: URL,
  pending: PendingSignIn,
): Promise<string> {
  const configuration = await configurationOf(provider);
  let claims: oidc.IDToken | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: pending.verifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
  } catch (e) {
    if (e instanceof TypeError && /fetch/i.test(e.message))
      throw new IdentityProviderUnavailable('The identity provider could not be reached.');
    throw new SignInRejected(
      `The identity provider's answer was not accepted: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const email = claims?.email;
  if (typeof email !== 'string' || !email.includes('@'))
    throw new SignInRejected('The identity provider did not assert an email address.');
  if (claims?.email_verified === false)
    throw new SignInRejected('The identity provider says this email address is not verified.');
  return email;
}
