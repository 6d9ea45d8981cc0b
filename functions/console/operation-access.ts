import { isApiError } from '../../platform/errors.js';
import { authorizeOperation } from '../invoke.js';
import type { OperationRegistry } from '../registry.js';
import { consoleCaller } from './console-caller.js';
import type { ConsoleSession } from '../identity/console-sessions.js';

/**
 * Whether the signed-in member may call this operation from the console: the registry's own check
 * (scopes, role, visibility), asked ahead so a page offers only the forms that would be accepted.
 * The operation checks again when called; this only decides what is shown.
 */
export function mayCall(registry: OperationRegistry, session: ConsoleSession, operationId: string): boolean {
  const op = registry.get(operationId);
  if (!op || !session.current) return false;
  try {
    authorizeOperation(registry, op, consoleCaller(session, session.current), 'console');
    return true;
  } catch (e) {
    if (isApiError(e)) return false;
    throw e;
  }
}
