import type { AppConfig } from '../config.js';
import type { OutboundHttp } from '../net/port.js';
import { httpExternalSearch } from './http.js';
import { type ExternalSearch, unconfiguredExternalSearch } from './port.js';

/** The adapter the configuration names: the HTTP API at EXTERNAL_SEARCH_URL, or the unconfigured port. */
export function externalSearchFromConfig(config: AppConfig, outbound: OutboundHttp): ExternalSearch {
  if (!config.EXTERNAL_SEARCH_URL) return unconfiguredExternalSearch;
  return httpExternalSearch({
    url: config.EXTERNAL_SEARCH_URL,
    ...(config.EXTERNAL_SEARCH_API_KEY ? { apiKey: config.EXTERNAL_SEARCH_API_KEY } : {}),
    outbound,
    allowLoopback: config.ALLOW_LOOPBACK_WEBHOOKS === true,
  });
}
