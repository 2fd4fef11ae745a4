import { isSecondFactorRequired } from "@svc/client";
import { useSvcClient } from "@svc/client/react";
import { type FormEvent, useId, useState } from "react";
import { useCodeCooldown } from "./code-cooldown.js";
import { messageOf } from "./format.js";

/**
 * Sign-in by emailed code: ask for a code, then type it in. In dev mode the
 * server hands the code to a same-machine caller (`dev_code`), and the form
 * fills it in. One code is sent per address a minute: a second device asking
 * within it sees how long to wait, and "I already have a code" takes the
 * code the first one got.
 */
export function SignIn() {
  const client = useSvcClient();
  const id = useId();
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [devCode, setDevCode] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [asked, setAsked] = useState(false);
  const cooldown = useCodeCooldown();

  async function run(work: () => Promise<void>): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  }

  const send = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      try {
        const sent = await client.auth.sendMagicCode(email);
        setSentTo(sent.email);
        setAsked(true);
        setDevCode(sent.dev_code !== undefined);
        setCode(sent.dev_code ?? "");
      } catch (failure) {
        // The cooldown is no error: the countdown and the way on show instead.
        if (!cooldown.start(failure)) throw failure;
      }
    });
  };

  const verify = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const result = await client.auth.verifyMagicCode(sentTo ?? email, code);
      if (isSecondFactorRequired(result)) {
        throw new Error("This account has two-factor sign-in on, which this page does not offer.");
      }
    });
  };

  return (
    <section className="card sign-in" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Sign up with your email</h2>
      {sentTo === null ? (
        <form onSubmit={send}>
          <label htmlFor={`${id}-email`}>Email</label>
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => {
              setEmail(event.target.value);
              cooldown.reset();
            }}
          />
          {cooldown.secondsLeft > 0 && (
            <p role="status">
              A code was sent to this address less than a minute ago. You can ask for a new one in{" "}
              {cooldown.secondsLeft} s, or enter the code you have.
            </p>
          )}
          <div className="row">
            <button type="submit" disabled={busy || cooldown.secondsLeft > 0}>
              Email me a code
            </button>
            <button
              type="button"
              className="link"
              onClick={(event) => {
                // The address is needed either way; the browser says so when it is missing.
                if (event.currentTarget.form?.reportValidity() !== true) return;
                setSentTo(email.trim());
                setAsked(false);
                setDevCode(false);
                setCode("");
                setError(null);
              }}
            >
              I already have a code
            </button>
          </div>
        </form>
      ) : (
        <form onSubmit={verify}>
          <p>
            {asked ? "We sent a 6-digit code to" : "Enter the 6-digit code we emailed to"}{" "}
            <strong>{sentTo}</strong>.{devCode && " (Dev mode: it is filled in for you.)"}
          </p>
          <label htmlFor={`${id}-code`}>Code</label>
          <input
            id={`${id}-code`}
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            required
            value={code}
            onChange={(event) => setCode(event.target.value.trim())}
          />
          <div className="row">
            <button type="submit" disabled={busy}>
              Sign in
            </button>
            <button type="button" className="link" onClick={() => setSentTo(null)}>
              Use another email
            </button>
          </div>
        </form>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
