// The password rules, in one module that both sides import: the server checks
// them (passwordSchema, checkPasswordPolicy) and the forms that set a password
// show them and check them as the user types, with the same words. Nothing here
// may need Node: the setup form bundles it for the browser.
//
// Length is the rule that matters (NIST SP 800-63B); no composition rules.
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

export interface PasswordRule {
  /** What the form lists, e.g. "At least 12 characters". */
  label: string;
  /** The field error when it is not met, e.g. "must be at least 12 characters". */
  message: string;
  met: (password: string) => boolean;
}

export const PASSWORD_RULES: readonly PasswordRule[] = [
  {
    label: `At least ${PASSWORD_MIN_LENGTH} characters (a passphrase works well)`,
    message: `must be at least ${PASSWORD_MIN_LENGTH} characters`,
    met: (p) => p.length >= PASSWORD_MIN_LENGTH,
  },
  {
    label: `At most ${PASSWORD_MAX_LENGTH} characters`,
    message: `must be at most ${PASSWORD_MAX_LENGTH} characters`,
    met: (p) => p.length <= PASSWORD_MAX_LENGTH,
  },
];

/** The message of the first rule the password breaks, or undefined when it meets them all. */
export function passwordProblem(password: string): string | undefined {
  return PASSWORD_RULES.find((rule) => !rule.met(password))?.message;
}
