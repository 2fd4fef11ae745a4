import { describe, expect, it } from "vitest";
import {
  magicCodeEmail,
  magicLinkEmail,
  passwordResetEmail,
  verificationEmail,
} from "./email-templates.js";

describe("email templates", () => {
  it.each([
    ["magicCodeEmail", magicCodeEmail("042917"), "Your sign-in code", "042917"],
    ["verificationEmail", verificationEmail("042917"), "Verify your email address", "042917"],
    ["passwordResetEmail", passwordResetEmail("042917"), "Reset your password", "042917"],
    [
      "magicLinkEmail",
      magicLinkEmail("https://app.example.com/auth/link?token=abc_DEF-123"),
      "Your sign-in link",
      "https://app.example.com/auth/link?token=abc_DEF-123",
    ],
  ])(
    "%s has its exact subject, the secret on the first line and the expiry",
    (_, content, subject, secret) => {
      expect(content.subject).toBe(subject);
      expect(content.body.split("\n")[0]).toContain(secret);
      expect(content.body).toContain("10 minutes");
    },
  );

  it("lets the magic-code subject be replaced", () => {
    const content = magicCodeEmail("123456", { subject: "Your Acme code" });
    expect(content.subject).toBe("Your Acme code");
    expect(content.body).toContain("123456");
  });

  it("accepts a URL object for the link", () => {
    expect(magicLinkEmail(new URL("https://app.example.com/l?t=1")).body).toContain(
      "https://app.example.com/l?t=1",
    );
  });

  it("is plain text", () => {
    for (const content of [
      magicCodeEmail("1"),
      verificationEmail("1"),
      passwordResetEmail("1"),
      magicLinkEmail("https://a.b/"),
    ]) {
      expect(content.body).not.toMatch(/<[a-z]/i);
    }
  });
});
