/** A message as the page shows it. */
export interface Message {
  readonly id: string;
  readonly authorId: string;
  readonly text: string;
  readonly createdAt: string;
}

/**
 * The messages of a `listMessages` page, oldest first (the page is newest
 * first). Rows come from the server as JSON: anything not shaped like a
 * message is left out.
 */
export function messagesOf(rows: readonly Readonly<Record<string, unknown>>[]): Message[] {
  const messages: Message[] = [];
  for (const row of rows) {
    const { id, authorId, text, createdAt } = row;
    if (
      typeof id === "string" &&
      typeof authorId === "string" &&
      typeof text === "string" &&
      typeof createdAt === "string"
    ) {
      messages.push({ id, authorId, text, createdAt });
    }
  }
  return messages.reverse();
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });

/** `14:05`, in the reader's time zone. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : timeFormat.format(date);
}
