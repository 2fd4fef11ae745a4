/**
 * A configuration problem that stops the boot. Every svc package that reads
 * environment variables throws this, so the server prints each refusal the
 * same way: one line naming the variable.
 *
 * @example
 * throw new ConfigError("SVC_EMAIL_FROM", "must be set when SVC_EMAIL_PROVIDER is resend");
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /** The environment variable (or manifest setting) to fix. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.variable = variable;
  }
}
