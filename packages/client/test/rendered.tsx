import { screen } from "@testing-library/react";
import { type ReactNode, StrictMode } from "react";
import type { SvcClient } from "../src/index.js";
import { SvcProvider } from "../src/react/index.js";

/** The text of every list item on screen, in document order. */
export function listItems(): string[] {
  return (
    screen
      .queryAllByRole("listitem")
      // No DOM lib in this package's tsconfig: the element is read as the plain object it is.
      .map((item) => (item as unknown as { textContent: string | null }).textContent ?? "")
  );
}

/** `children` under `client`'s provider, in StrictMode (effects run twice, as in development). */
export function withClient(client: SvcClient, children: ReactNode) {
  return (
    <StrictMode>
      <SvcProvider client={client}>{children}</SvcProvider>
    </StrictMode>
  );
}
