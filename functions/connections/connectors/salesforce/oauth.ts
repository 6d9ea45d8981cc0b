import type { OAuthSource } from '../../oauth-client.js';

/** Salesforce's OAuth (login.salesforce.com, or SALESFORCE_LOGIN_URL for a sandbox): `api` and a refresh token. */
export const salesforceOAuth: OAuthSource = {
  type: 'salesforce',
  name: 'Salesforce',
  authorizeUrl: (config, p) =>
    `${config.SALESFORCE_LOGIN_URL.replace(/\/+$/, '')}/services/oauth2/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: config.SALESFORCE_CLIENT_ID ?? '',
      redirect_uri: p.redirectUri,
      state: p.state,
      scope: 'api refresh_token',
      code_challenge: p.challenge,
      code_challenge_method: 'S256',
    })}`,
  tokenUrl: (config) => `${config.SALESFORCE_LOGIN_URL.replace(/\/+$/, '')}/services/oauth2/token`,
  clientId: (config) => config.SALESFORCE_CLIENT_ID ?? '',
  clientSecret: (config) => config.SALESFORCE_CLIENT_SECRET ?? '',
};
