import type { OAuthSource } from '../../oauth-client.js';

/** Google's OAuth for the calendar, read only; offline access and a consent prompt so a refresh token is issued. */
export const googleCalendarOAuth: OAuthSource = {
  type: 'google_calendar',
  name: 'Google Calendar',
  authorizeUrl: (config, p) =>
    `${config.GOOGLE_ACCOUNTS_URL.replace(/\/+$/, '')}/o/oauth2/v2/auth?${new URLSearchParams({
      response_type: 'code',
      client_id: config.GOOGLE_CLIENT_ID ?? '',
      redirect_uri: p.redirectUri,
      state: p.state,
      scope: 'https://www.googleapis.com/auth/calendar.readonly',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      code_challenge: p.challenge,
      code_challenge_method: 'S256',
    })}`,
  tokenUrl: (config) => config.GOOGLE_TOKEN_URL,
  clientId: (config) => config.GOOGLE_CLIENT_ID ?? '',
  clientSecret: (config) => config.GOOGLE_CLIENT_SECRET ?? '',
};
