import { isSecondFactorRequired, type SignInResult } from "@svc/client";
import { useSvcClient } from "@svc/client/react";
import { type FormEvent, useState } from "react";
import { useCodeCooldown } from "./code-cooldown.js";
import { attempt } from "./format.js";

type Method = "code" | "password";

function signedIn(result: SignInResult): void {
  if (isSecondFactorRequired(result)) {
    throw new Error("This account has two-factor sign-in on, which this page does not offer.");
  }
}

/** Sign-in by emailed code, or by password (sign in or create an account). */
export function SignIn() {
  const [method, setMethod] = useState<Method>("code");
  return (
    <section className="card narrow" aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">Sign in</h2>
      <fieldset className="tabs">
        <legend className="visually-hidden">Sign-in method</legend>
        <button type="button" aria-pressed={method === "code"} onClick={() => setMethod("code")}>
          Email code
        </button>
        <button
          type="button"
          aria-pressed={method === "password"}
          onClick={() => setMethod("password")}
        >
          Password
        </button>
      </fieldset>
      {method === "code" ? <CodeSignIn /> : <PasswordSignIn />}
    </section>
  );
}

function CodeSignIn() {
  const client = useSvcClient();
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [devCode, setDevCode] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [asked, setAsked] = useState(false);
  const cooldown = useCodeCooldown();

  const send = (event: FormEvent) => {
    event.preventDefault();
    void attempt(
      async () => {
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
      },
      setBusy,
      setError,
    );
  };
  const verify = (event: FormEvent) => {
    event.preventDefault();
    void attempt(
      async () => signedIn(await client.auth.verifyMagicCode(sentTo ?? email, code)),
      setBusy,
      setError,
    );
  };

  return (
    <>
      {sentTo === null ? (
        <form onSubmit={send}>
          <label htmlFor="code-email">Email</label>
          <input
            id="code-email"
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
          <label htmlFor="code">Code</label>
          <input
            id="code"
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
    </>
  );
}

function PasswordSignIn() {
  const client = useSvcClient();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = (create: boolean) =>
    void attempt(
      async () => {
        if (create) await client.auth.register(email, password);
        else signedIn(await client.auth.login(email, password));
      },
      setBusy,
      setError,
    );

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        run(false);
      }}
    >
      <label htmlFor="password-email">Email</label>
      <input
        id="password-email"
        type="email"
        autoComplete="email"
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <label htmlFor="password">Password</label>
      <input
        id="password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(event) => setPassword(event.target.value)}
      />
      <div className="row">
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => run(true)}>
          Create account
        </button>
      </div>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </form>
  );
}
