/**
 * The mail port: how an action's email leaves the service. In the embedded default (and wherever no
 * email API is configured) nothing is sent: the message stays in the outbox, readable through the
 * API. With EMAIL_API_URL set, an HTTP email API (Resend-style JSON: from, to, subject, text) sends it.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface MailResult {
  /** `outbox` (kept, not sent) or `http`. */
  provider: 'outbox' | 'http';
  /** The provider's id for the message (null for the outbox). */
  id: string | null;
}

export interface Mailer {
  send(message: MailMessage): Promise<MailResult>;
}
