import { describe, expect, it } from "vitest";
import {
  AgentDocsError,
  type AgentDocsErrorCode,
  agentDocsErrorCodes,
  isWireErrorCode,
  quoteForMessage,
  toAgentErrorResponse,
} from "./errors.js";

describe("AgentDocsError", () => {
  const codes = Object.keys(agentDocsErrorCodes).filter(
    (code): code is AgentDocsErrorCode => code in agentDocsErrorCodes,
  );
  it.each(codes)("%s carries its status and default message", (code) => {
    const entry = agentDocsErrorCodes[code];
    const error = new AgentDocsError(code);
    expect(error.status).toBe(entry.status);
    expect(error.expose).toBe(entry.status !== undefined);
    expect(error.message).toBe(entry.message);
    expect(isWireErrorCode(code)).toBe(entry.status !== undefined);
  });

  it("keeps a custom message and the cause", () => {
    const cause = new Error("disk");
    const error = new AgentDocsError("CONTENT_NOT_FOUND", { message: "Gone.", cause });
    expect(error).toMatchObject({ message: "Gone.", cause, name: "AgentDocsError" });
  });
});

describe("toAgentErrorResponse", () => {
  it("keeps a wire error's code and message", () => {
    expect(toAgentErrorResponse(new AgentDocsError("DOC_NOT_FOUND"))).toEqual({
      status: 404,
      body: {
        error: { code: "DOC_NOT_FOUND", message: agentDocsErrorCodes.DOC_NOT_FOUND.message },
      },
      internal: false,
    });
  });

  it.each([
    ["a local error", new AgentDocsError("INVALID_CONTENT", { message: "/secret/path: bad" })],
    ["a plain error", new Error("SELECT * FROM secrets")],
    ["a string", "boom"],
  ])("hides %s behind INTERNAL_ERROR", (_name, error) => {
    const response = toAgentErrorResponse(error);
    expect(response).toEqual({
      status: 500,
      body: { error: { code: "INTERNAL_ERROR", message: "Something went wrong on the server." } },
      internal: true,
    });
  });
});

describe("quoteForMessage", () => {
  it("quotes and bounds caller input", () => {
    expect(quoteForMessage('a"b')).toBe('"a\\"b"');
    expect(quoteForMessage("x".repeat(500))).toHaveLength(123);
  });
});
