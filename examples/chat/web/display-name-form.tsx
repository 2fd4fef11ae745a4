import { useMutation } from "@svc/client/react";
import { type FormEvent, type ReactNode, useState } from "react";
import { MAX_DISPLAY_NAME_LENGTH } from "../functions/_limits.js";
import { errorMessage } from "./error-message.js";

/** Sets the name others see on messages and in the online list. */
export function DisplayNameForm(props: {
  current: string;
  onSaved: () => void;
  onCancel?: () => void;
}): ReactNode {
  const [name, setName] = useState(props.current);
  const [setDisplayName, { pending, error }] = useMutation("setDisplayName");

  function submit(event: FormEvent<HTMLFormElement>): void {
    event.preventDefault();
    setDisplayName({ displayName: name }).then(props.onSaved, () => undefined);
  }

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="display-name-heading">
      <h2 id="display-name-heading">
        {props.current === "" ? "Pick a display name" : "Change your display name"}
      </h2>
      <label>
        Display name
        <input
          required
          maxLength={MAX_DISPLAY_NAME_LENGTH}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
      </label>
      {error !== null && (
        <p role="alert" className="error">
          {errorMessage(error)}
        </p>
      )}
      <div className="row">
        <button type="submit" disabled={pending}>
          Save
        </button>
        {props.onCancel !== undefined && (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
