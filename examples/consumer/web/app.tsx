import { useAuth } from "@svc/client/react";
import { ApiKeys } from "./api-keys.js";
import { DeleteAccount } from "./delete-account.js";
import { Invitations } from "./invitations.js";
import { Organizations } from "./organizations.js";
import { Profile } from "./profile.js";
import { SignIn } from "./sign-in.js";
import { useMe } from "./use-me.js";
import { VerifyEmail } from "./verify-email.js";

/** The signed-in app: profile, email check, organizations with projects, invitations, API keys. */
export function App() {
  const { loading, signedIn, signOut } = useAuth();
  return (
    <>
      <header className="top">
        <h1>Consumer app</h1>
        {signedIn && (
          <button type="button" className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </header>
      <main className="page">
        {loading ? <p>Loading…</p> : signedIn ? <Account /> : <SignIn />}
      </main>
    </>
  );
}

function Account() {
  const { me, refresh } = useMe();
  const email = typeof me?.user?.email === "string" ? me.user.email : null;
  const verified = typeof me?.user?.emailVerified === "string";
  return (
    <>
      <p className="whoami">
        Signed in as <strong>{email ?? "…"}</strong>
      </p>
      {me !== null && !verified && <VerifyEmail onVerified={refresh} />}
      <div className="grid">
        <Profile />
        <Invitations />
      </div>
      <Organizations />
      <ApiKeys />
      <DeleteAccount />
    </>
  );
}
