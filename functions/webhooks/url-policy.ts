import type { AppConfig } from '../../platform/config.js';
import { checkWebhookUrlResolves, checkWebhookUrlSyntax, type UrlPolicy } from '../../platform/net/webhook-url.js';
import type { Services } from '../services.js';

/** The policy from configuration: https everywhere; http and loopback only when loopback is explicitly allowed. */
export const urlPolicyFor = (config: AppConfig): UrlPolicy => ({ allowLoopback: config.ALLOW_LOOPBACK_WEBHOOKS });

/** Full check of a webhook URL: its shape, then every address its host resolves to. */
export async function checkWebhookUrl(services: Services, raw: string): Promise<string> {
  const policy = urlPolicyFor(services.config);
  const url = checkWebhookUrlSyntax(raw, policy);
  await checkWebhookUrlResolves(url, policy, (host) => services.outbound.resolveHost(host));
  return url.toString();
}
