import { z } from 'zod';
import { ApiError } from '../errors.js';
import type { OutboundHttp } from '../net/port.js';
import type { Mailer } from './port.js';

const Sent = z.object({ id: z.string().min(1) });

/**
 * An HTTP email API (Resend's shape: POST {from, to, subject, text} with a bearer key, answering
 * {id}) through the outbound HTTP port, so the SSRF policy applies. A failure is
 * dependency_unavailable, without the provider's text.
 */
export function httpMailer(options: {
  url: string;
  apiKey: string;
  from: string;
  outbound: OutboundHttp;
  allowLoopback: boolean;
}): Mailer {
  return {
    async send(message) {
      const result = await options.outbound.send({
        method: 'POST',
        url: options.url,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
        body: JSON.stringify({ from: options.from, to: [message.to], subject: message.subject, text: message.text }),
        timeoutMs: 10_000,
        allowLoopback: options.allowLoopback,
        maxResponseBytes: 16_384,
      });
      if (!result.ok)
        throw new ApiError('dependency_unavailable', `The email API could not be reached (${result.error}).`);
      if (result.status < 200 || result.status >= 300)
        throw new ApiError('dependency_unavailable', `The email API answered HTTP ${result.status}.`, {
          provider_status: result.status,
        });
      let id: string | null = null;
      try {
        const parsed = Sent.safeParse(JSON.parse(result.body));
        id = parsed.success ? parsed.data.id : null;
      } catch {
        id = null;
      }
      return { provider: 'http', id };
    },
  };
}
