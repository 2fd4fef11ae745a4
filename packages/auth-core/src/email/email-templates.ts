/** A rendered email: what a template produces and `EmailMessage` needs besides the addresses. */
export interface EmailContent {
  readonly subject: string;
  readonly body: string;
}

/** Options of `magicCodeEmail`. */
export interface MagicCodeEmailOptions {
  /** Replaces the default subject `Your sign-in code` (`SVC_AUTH_EMAIL_SUBJECT`). */
  readonly subject?: string | undefined;
}

// Codes and links live 10 minutes (the spec's lifetime); the wording is kept
// beside the templates so a change of lifetime has one place to edit.
const EXPIRY_NOTICE = "It expires in 10 minutes and works only once.";
const IGNORE_NOTICE = "If you did not ask for this, you can ignore this email.";

/**
 * The magic-code sign-in email. The code sits on the first line so it also
 * shows in notification previews and the dev inbox's log line.
 *
 * @example
 * magicCodeEmail("123456").subject; // "Your sign-in code"
 */
export function magicCodeEmail(code: string, options: MagicCodeEmailOptions = {}): EmailContent {
  return {
    subject: options.subject ?? "Your sign-in code",
    body: [
      `Your sign-in code is ${code}`,
      "",
      `Enter it on the sign-in page to continue. ${EXPIRY_NOTICE}`,
      "",
      IGNORE_NOTICE,
      "",
    ].join("\n"),
  };
}

/**
 * The email-verification email, carrying the code that proves the signed-in
 * user owns the address.
 *
 * @example
 * verificationEmail("123456").subject; // "Verify your email address"
 */
export function verificationEmail(code: string): EmailContent {
  return {
    subject: "Verify your email address",
    body: [
      `Your verification code is ${code}`,
      "",
      `Enter it in the app to confirm this email address belongs to you. ${EXPIRY_NOTICE}`,
      "",
      IGNORE_NOTICE,
      "",
    ].join("\n"),
  };
}

/**
 * The magic-link sign-in email. The link ends the first line, so the dev
 * inbox's log line shows it and mail clients can make all of it clickable.
 *
 * @example
 * magicLinkEmail("https://app.example.com/auth?token=abc").subject; // "Your sign-in link"
 */
export function magicLinkEmail(url: string | URL): EmailContent {
  return {
    subject: "Your sign-in link",
    body: [`Sign in with this link: ${String(url)}`, "", EXPIRY_NOTICE, "", IGNORE_NOTICE, ""].join(
      "\n",
    ),
  };
}

/**
 * The password-reset email, carrying the code that `POST
 * /api/auth/password/reset` exchanges for a new password.
 *
 * @example
 * passwordResetEmail("123456").subject; // "Reset your password"
 */
export function passwordResetEmail(code: string): EmailContent {
  return {
    subject: "Reset your password",
    body: [
      `Your password reset code is ${code}`,
      "",
      `Enter it with your new password to reset it. ${EXPIRY_NOTICE} Resetting signs out every device signed in to your account.`,
      "",
      "If you did not ask for this, you can ignore this email: your password stays as it is.",
      "",
    ].join("\n"),
  };
}
