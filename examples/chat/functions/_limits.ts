// Limits shared by the functions (which enforce them) and the web front end
// (which shows them); a file starting with `_` is not loaded as a function.

/** The longest message, in characters. */
export const MAX_MESSAGE_LENGTH = 2000;

/** The longest display name, in characters. */
export const MAX_DISPLAY_NAME_LENGTH = 40;

/** The longest channel name, in characters. */
export const MAX_CHANNEL_NAME_LENGTH = 40;

/** A channel name: lower-case letters and digits in words joined by single dashes. */
export const CHANNEL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
