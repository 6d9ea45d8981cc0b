import type { Mailer } from './port.js';

/** Keeps every message in the outbox (the caller records it there) and sends nothing. */
export const outboxMailer: Mailer = {
  async send() {
    return { provider: 'outbox', id: null };
  },
};
