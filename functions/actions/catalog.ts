/**
 * The actions an agent can take in the world (spec: Routine config `actions_allowed`). A routine's
 * `actions_allowed` narrows this catalog (`[]` disables every action); an action outside it becomes a
 * proposal with `action_not_allowed`, never a send.
 */
export const ACTIONS = {
  email_member: { operation: 'actions.email_member', description: 'Send an email to a member of the workspace.' },
} as const;

export type ActionName = keyof typeof ACTIONS;
export const ACTION_NAMES = Object.keys(ACTIONS) as ActionName[];
export const isActionName = (name: string): name is ActionName => name in ACTIONS;
