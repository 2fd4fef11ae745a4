import { useSvcClient } from "@svc/client/react";
import { type FormEvent, useState } from "react";
import { attempt } from "./format.js";

/**
 * Shown to accounts made with a password: invitations go to an address, so
 * they are only answered once the address is proven with a code sent to it.
 */
export function VerifyEmail(props: { onVerified(): void }) {
  const client = useSvcClient();
  const [sent, setSent] = useState(false);
  const [devCode, setDevCode] = useState(false);
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const send = () =>
    void attempt(
      async () => {
        const answer = await client.auth.sendVerification();
        setSent(true);
        setDevCode(answer.dev_code !== undefined);
        setCode(answer.dev_code ?? "");
      },
      setBusy,
      setError,
    );
  const verify = (event: FormEvent) => {
    event.preventDefault();
    void attempt(
      async () => {
        await client.auth.verifyEmail(code);
        props.onVerified();
      },
      setBusy,
      setError,
    );
  };

  return (
    <section className="card banner" aria-labelledby="verify-title">
      <h2 id="verify-title">Verify your email</h2>
      <p>Invitations to organizations reach you once your address is verified.</p>
      {sent ? (
        <form onSubmit={verify} className="inline">
          <label htmlFor="verify-code">Code{devCode && " (dev mode: filled in for you)"}</label>
          <input
            id="verify-code"
            inputMode="numeric"
            pattern="[0-9]{6}"
            required
            value={code}
            onChange={(event) => setCode(event.target.value.trim())}
          />
          <button type="submit" disabled={busy}>
            Verify
          </button>
        </form>
      ) : (
        <button type="button" disabled={busy} onClick={send}>
          Send me a code
        </button>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
