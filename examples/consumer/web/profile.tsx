import { useLiveQuery, useMutation } from "@svc/client/react";
import { type FormEvent, useEffect, useState } from "react";

/** The caller's profile: a display name and a bio, created on the first save. */
export function Profile() {
  const { value: profile, loading, error } = useLiveQuery("myProfile");
  const [saveProfile, saving] = useMutation("saveProfile");
  const [displayName, setDisplayName] = useState("");
  const [bio, setBio] = useState("");
  const [saved, setSaved] = useState(false);

  // Fill the form once the stored profile arrives (or changes elsewhere).
  useEffect(() => {
    if (profile === undefined) return;
    setDisplayName(profile?.displayName ?? "");
    setBio(profile?.bio ?? "");
  }, [profile]);

  const save = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    void saveProfile({ displayName, ...(bio.trim() !== "" && { bio }) }).then(
      () => setSaved(true),
      () => undefined,
    );
  };

  const failure = error ?? saving.error;
  return (
    <section className="card" aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      {loading ? (
        <p>Loading…</p>
      ) : (
        <form onSubmit={save}>
          <label htmlFor="display-name">Display name</label>
          <input
            id="display-name"
            required
            maxLength={80}
            value={displayName}
            onChange={(event) => setDisplayName(event.target.value)}
          />
          <label htmlFor="bio">Bio</label>
          <textarea
            id="bio"
            rows={3}
            maxLength={1000}
            value={bio}
            onChange={(event) => setBio(event.target.value)}
          />
          <div className="row">
            <button type="submit" disabled={saving.pending}>
              {profile === null ? "Create profile" : "Save profile"}
            </button>
            {saved && (
              <span role="status" className="ok">
                Saved
              </span>
            )}
          </div>
        </form>
      )}
      {failure !== null && (
        <p role="alert" className="error">
          {failure.message}
        </p>
      )}
    </section>
  );
}
