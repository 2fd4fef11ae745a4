import { useAuth, useLiveQuery } from "@svc/client/react";
import { AdminView } from "./admin.js";
import { MyPlace } from "./my-place.js";
import { SignIn } from "./sign-in.js";

/** The waitlist: sign up with a code, see your place; admins see everyone and invite. */
export function App() {
  const { loading, signedIn, signOut } = useAuth();
  return (
    <>
      <header className="top">
        <h1>Waitlist</h1>
        {signedIn && (
          <button type="button" className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </header>
      <main className="page">
        {loading ? <p>Loading…</p> : signedIn ? <SignedIn /> : <SignedOut />}
      </main>
    </>
  );
}

function SignedOut() {
  return (
    <>
      <section className="intro">
        <h2>Something good is coming.</h2>
        <p>
          Leave your email to get a place in line. We let people in in the order they joined, and
          you can check your place here any time.
        </p>
      </section>
      <SignIn />
    </>
  );
}

function SignedIn() {
  const me = useLiveQuery("me");
  if (me.error !== null) {
    return (
      <p role="alert" className="error">
        {me.error.message}
      </p>
    );
  }
  if (me.loading || me.value === undefined) return <p>Loading your place…</p>;
  return (
    <>
      <MyPlace me={me.value} />
      {me.value.isAdmin && <AdminView />}
    </>
  );
}
