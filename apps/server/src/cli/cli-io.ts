/** Where the CLI writes. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
}
