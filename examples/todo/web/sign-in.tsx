import { isSecondFactorRequired } from "@svc/client";
import { useSvcClient } from "@svc/client/react";
import { type FormEvent, type ReactNode, useState } from "react";
import { useCodeCooldown } from "./code-cooldown.js";
import { errorMessage } from "./error-message.js";

type Step =
  | { name: "email" }
  // `sent`: this page asked for the code (else the user has one already).
  | { name: "code"; devCode: string | null; sent: boolean }
  | { name: "second-factor"; challenge: string };

/**
 * Sign-in with a one-time code sent by email. In dev mode the server hands
 * the code back to a caller on the same machine (`dev_code`); the form shows
 * it and fills it in. Users with an authenticator app enter its code next.
 * One code is sent per address a minute: a second device asking within it
 * sees how long to wait, and "I already have a code" takes the code the
 * first one got.
 */
export function SignIn(): ReactNode {
  const client = useSvcClient();
  const [step, setStep] = useState<Step>({ name: "email" });
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cooldown = useCodeCooldown();

  async function run(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  function submit(event: FormEvent<HTMLFormElement>): void {
    event.preventDefault();
    if (step.name === "email") {
      void run(async () => {
        try {
          const sent = await client.auth.sendMagicCode(email);
          setCode(sent.dev_code ?? "");
          setStep({ name: "code", devCode: sent.dev_code ?? null, sent: true });
        } catch (caught) {
          // The cooldown is no error: the countdown and the way on show instead.
          if (!cooldown.start(caught)) throw caught;
        }
      });
    } else if (step.name === "code") {
      void run(async () => {
        const result = await client.auth.verifyMagicCode(email, code.trim());
        if (isSecondFactorRequired(result)) {
          setCode("");
          setStep({ name: "second-factor", challenge: result.challenge });
        }
      });
    } else {
      void run(async () => {
        await client.auth.verifySecondFactor(step.challenge, code.trim());
      });
    }
  }

  return (
    <form className="card stack" onSubmit={submit} aria-label="Sign in">
      <h2>Sign in</h2>
      {step.name === "email" ? (
        <label>
          Email
          <input
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => {
              setEmail(event.target.value);
              cooldown.reset();
            }}
          />
        </label>
      ) : (
        <>
          {step.name === "code" && (
            <p className="muted">
              {step.sent ? "We sent a code to" : "Enter the code we emailed to"}{" "}
              <strong>{email}</strong>.
              {step.devCode !== null && (
                <>
                  {" "}
                  Dev mode: the code is <code>{step.devCode}</code> (filled in below).
                </>
              )}
            </p>
          )}
          <label>
            {step.name === "code" ? "Code" : "Authenticator code"}
            <input
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              value={code}
              onChange={(event) => setCode(event.target.value)}
            />
          </label>
        </>
      )}
      {step.name === "email" && cooldown.secondsLeft > 0 && (
        <p role="status" className="muted">
          A code was sent to this address less than a minute ago. You can ask for a new one in{" "}
          {cooldown.secondsLeft} s, or enter the code you have.
        </p>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="row">
        <button
          type="submit"
          disabled={busy || (step.name === "email" && cooldown.secondsLeft > 0)}
        >
          {step.name === "email" ? "Send code" : "Sign in"}
        </button>
        {step.name === "email" && (
          <button
            type="button"
            className="secondary"
            onClick={(event) => {
              // The address is needed either way; the browser says so when it is missing.
              if (event.currentTarget.form?.reportValidity() !== true) return;
              setCode("");
              setError(null);
              setStep({ name: "code", devCode: null, sent: false });
            }}
          >
            I already have a code
          </button>
        )}
        {step.name !== "email" && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setStep({ name: "email" });
              setError(null);
            }}
          >
            Use another email
          </button>
        )}
      </div>
    </form>
  );
}
