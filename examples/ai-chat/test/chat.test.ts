import { createClient } from "@svc/client";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeModel, fakeReply, startFakeModel } from "./fake-model.js";
import {
  ADMIN_TOKEN,
  type Answer,
  call,
  callFunction,
  errorCode,
  signInWithCode,
  startApp,
  type TestApp,
} from "./fixtures.js";

// The chat against the real server on every database, with the model
// endpoint played by a local fake (test/fake-model.ts).

interface Asked {
  conversationId: string;
  userMessageId: string;
  assistantMessageId: string;
  reply: string;
}

interface MessageRow {
  id: string;
  conversationId: string;
  role: "user" | "assistant";
  content: string;
  ownerId: string;
  createdAt: string;
}

const MODEL_ENV = [
  "AI_CHAT_MODEL_URL",
  "AI_CHAT_MODEL",
  "AI_CHAT_API_KEY",
  "AI_CHAT_TIMEOUT_MS",
  "AI_CHAT_SYSTEM_PROMPT",
] as const;

/** Sets the model variables for the next calls (the functions read them on every call). */
function useModel(settings: Partial<Record<(typeof MODEL_ENV)[number], string>>): void {
  for (const name of MODEL_ENV) delete process.env[name];
  Object.assign(process.env, settings);
}

describe.each(testDatabases())("the AI chat on $name", (database) => {
  let app: TestApp;
  let model: FakeModel;
  let emails = 0;
  const newUser = () => signInWithCode(app, `chatter-${++emails}@example.com`);
  const saved = Object.fromEntries(MODEL_ENV.map((name) => [name, process.env[name]]));

  /** The messages of a conversation as its owner reads them over the entity API, in order. */
  async function messagesOf(token: string, conversationId: string): Promise<MessageRow[]> {
    const where = encodeURIComponent(JSON.stringify({ conversationId }));
    const answer = await call(app, "GET", `/api/entities/Message?where=${where}&order=createdAt`, {
      token,
    });
    expect(answer.status).toBe(200);
    return answer.body as MessageRow[];
  }

  /** Every row of `entity`, as the admin token sees it. */
  async function adminRows(entity: string): Promise<Record<string, unknown>[]> {
    return (await call(app, "GET", `/api/entities/${entity}?limit=1000`, { token: ADMIN_TOKEN }))
      .body as Record<string, unknown>[];
  }

  beforeAll(async () => {
    model = await startFakeModel();
    app = await startApp(database);
  });

  afterAll(async () => {
    await app?.[Symbol.asyncDispose]();
    await model?.[Symbol.asyncDispose]();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  beforeEach(() => {
    model.mode = "reply";
    model.requests.length = 0;
    useModel({ AI_CHAT_MODEL_URL: model.url, AI_CHAT_MODEL: "fake-1" });
  });

  afterEach(() => {
    useModel({});
  });

  it("stores the question and the model's reply, and sends the model the whole conversation", async () => {
    useModel({
      AI_CHAT_MODEL_URL: `${model.url}/`,
      AI_CHAT_MODEL: "fake-1",
      AI_CHAT_API_KEY: "sk-test",
      AI_CHAT_SYSTEM_PROMPT: "Be brief.",
    });
    const token = await newUser();
    const first = await callFunction(app, token, "ask", { content: "  What is svc?  " });
    expect(first.status).toBe(200);
    const asked = first.body as Asked;
    expect(asked.reply).toBe(fakeReply([{ content: "Be brief." }, { content: "What is svc?" }]));

    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]).toEqual({
      path: "/v1/chat/completions",
      authorization: "Bearer sk-test",
      body: {
        model: "fake-1",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "What is svc?" },
        ],
      },
    });

    // A new conversation is titled after its first message.
    const conversation = await call(
      app,
      "GET",
      `/api/entities/Conversation/${asked.conversationId}`,
      {
        token,
      },
    );
    expect(conversation.body).toMatchObject({ title: "What is svc?" });

    const second = (await callFunction(app, token, "ask", {
      conversationId: asked.conversationId,
      content: "And why?",
    })) as Answer & { body: Asked };
    expect(second.status).toBe(200);
    expect(second.body.conversationId).toBe(asked.conversationId);
    expect(model.requests[1]?.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "What is svc?" },
      { role: "assistant", content: asked.reply },
      { role: "user", content: "And why?" },
    ]);

    const messages = await messagesOf(token, asked.conversationId);
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ["user", "What is svc?"],
      ["assistant", asked.reply],
      ["user", "And why?"],
      ["assistant", second.body.reply],
    ]);
    expect(messages.map((message) => message.id)).toEqual([
      asked.userMessageId,
      asked.assistantMessageId,
      second.body.userMessageId,
      second.body.assistantMessageId,
    ]);
    // Stored in the order they were said, even within one millisecond.
    const times = messages.map((message) => Date.parse(message.createdAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(new Set(times).size).toBe(times.length);
  });

  it("answers with the built-in echo model when AI_CHAT_MODEL_URL=echo", async () => {
    useModel({ AI_CHAT_MODEL_URL: "echo" });
    const token = await newUser();
    const answer = await callFunction(app, token, "ask", { content: "hello" });
    expect(answer.status).toBe(200);
    expect((answer.body as Asked).reply).toBe("[echo model, not an AI] You said: hello");
    expect(model.requests).toEqual([]);
  });

  it("writes nothing and says what is missing when no model is configured", async () => {
    const token = await newUser();
    for (const [settings, variable] of [
      [{}, "AI_CHAT_MODEL_URL"],
      [{ AI_CHAT_MODEL_URL: model.url }, "AI_CHAT_MODEL"],
      [{ AI_CHAT_MODEL_URL: "ftp://example.com/v1", AI_CHAT_MODEL: "m" }, "AI_CHAT_MODEL_URL"],
      [
        { AI_CHAT_MODEL_URL: model.url, AI_CHAT_MODEL: "m", AI_CHAT_TIMEOUT_MS: "soon" },
        "AI_CHAT_TIMEOUT_MS",
      ],
    ] as const) {
      useModel(settings);
      const answer = await callFunction(app, token, "ask", { content: "anyone there?" });
      expect(answer.status, variable).toBe(501);
      expect(errorCode(answer)).toBe("MODEL_NOT_CONFIGURED");
      expect((answer.body as { error: { message: string } }).error.message).toContain(variable);
    }
    expect(model.requests).toEqual([]);
    const mine = await call(app, "GET", "/api/entities/Conversation", { token });
    expect(mine.body).toEqual([]);
  });

  it.each([
    ["fail", 502, "MODEL_FAILED"],
    ["empty", 502, "MODEL_FAILED"],
    ["text", 502, "MODEL_FAILED"],
    ["huge", 502, "MODEL_FAILED"],
    ["hang", 504, "MODEL_TIMEOUT"],
  ] as const)(
    "keeps the question but stores no reply when the model answers %s",
    async (mode, status, code) => {
      useModel({
        AI_CHAT_MODEL_URL: model.url,
        AI_CHAT_MODEL: "fake-1",
        AI_CHAT_TIMEOUT_MS: "300",
      });
      model.mode = mode;
      const token = await newUser();
      const answer = await callFunction(app, token, "ask", { content: "Still there?" });
      expect(answer.status).toBe(status);
      expect(errorCode(answer)).toBe(code);
      expect(model.requests).toHaveLength(1);
      // No stack, URL or upstream text reaches the caller.
      expect(JSON.stringify(answer.body)).not.toMatch(/127\.0\.0\.1|upstream|fake model/);

      const [conversation] = (await call(app, "GET", "/api/entities/Conversation", { token }))
        .body as {
        id: string;
      }[];
      expect(conversation).toBeDefined();
      const messages = await messagesOf(token, conversation?.id ?? "");
      expect(messages.map((message) => [message.role, message.content])).toEqual([
        ["user", "Still there?"],
      ]);

      // The next attempt in the same conversation works once the model is back.
      model.mode = "reply";
      const retry = await callFunction(app, token, "ask", {
        conversationId: conversation?.id,
        content: "Now?",
      });
      expect(retry.status).toBe(200);
      expect(
        (await messagesOf(token, conversation?.id ?? "")).map((message) => message.role),
      ).toEqual(["user", "user", "assistant"]);
    },
  );

  it("validates the message", async () => {
    const token = await newUser();
    for (const content of ["", "   ", "x".repeat(4001)]) {
      const answer = await callFunction(app, token, "ask", { content });
      expect(answer.status).toBe(400);
      expect(errorCode(answer)).toBe("INVALID_ARGS");
    }
    expect(model.requests).toEqual([]);
  });

  it("keeps each user's conversations to themselves", async () => {
    const ada = await newUser();
    const eve = await newUser();
    const asked = (await callFunction(app, ada, "ask", { content: "A secret" })).body as Asked;

    expect((await call(app, "GET", "/api/entities/Conversation", { token: eve })).body).toEqual([]);
    expect(await messagesOf(eve, asked.conversationId)).toEqual([]);
    const read = await call(app, "GET", `/api/entities/Message/${asked.assistantMessageId}`, {
      token: eve,
    });
    expect(read.status).toBe(404);

    // Eve can neither ask into, store replies in, write to nor delete Ada's conversation.
    const requestsBefore = model.requests.length;
    for (const [name, args] of [
      ["ask", { conversationId: asked.conversationId, content: "me too" }],
      ["addUserMessage", { conversationId: asked.conversationId, content: "me too" }],
      ["storeReply", { conversationId: asked.conversationId, content: "forged" }],
      ["deleteConversation", { id: asked.conversationId }],
    ] as const) {
      const answer = await callFunction(app, eve, name, args);
      expect(answer.status, name).toBe(404);
      expect(errorCode(answer), name).toBe("CONVERSATION_NOT_FOUND");
    }
    expect(model.requests.length).toBe(requestsBefore);
    const planted = await call(app, "POST", "/api/entities/Message", {
      token: eve,
      body: { conversationId: asked.conversationId, role: "assistant", content: "forged" },
    });
    expect(planted.status).toBe(403);
    expect(errorCode(planted)).toBe("POLICY_DENIED");
    const renamed = await call(app, "PATCH", `/api/entities/Conversation/${asked.conversationId}`, {
      token: eve,
      body: { title: "mine now" },
    });
    expect(renamed.status).toBe(404);
    const removed = await call(app, "DELETE", `/api/entities/Message/${asked.userMessageId}`, {
      token: eve,
    });
    expect(removed.status).toBe(404);

    // Nobody edits a stored message, not even its owner.
    const edit = await call(app, "PATCH", `/api/entities/Message/${asked.assistantMessageId}`, {
      token: ada,
      body: { content: "rewritten" },
    });
    expect(edit.status).toBe(403);
    expect((await messagesOf(ada, asked.conversationId)).map((message) => message.content)).toEqual(
      ["A secret", asked.reply],
    );
  });

  it("keeps guests and anonymous callers out", async () => {
    const guest = ((await call(app, "POST", "/api/auth/guest")).body as { token: string }).token;
    const asGuest = await callFunction(app, guest, "ask", { content: "hi" });
    expect(asGuest.status).toBe(403);
    expect(errorCode(asGuest)).toBe("GUEST_NOT_ALLOWED");
    const direct = await call(app, "POST", "/api/entities/Conversation", {
      token: guest,
      body: { title: "guest" },
    });
    expect(direct.status).toBe(403);
    const anonymous = await call(app, "POST", "/api/fn/ask", { body: { content: "hi" } });
    expect(anonymous.status).toBe(401);
    expect(model.requests).toEqual([]);
  });

  it("deletes a conversation with its messages", async () => {
    const token = await newUser();
    const kept = (await callFunction(app, token, "ask", { content: "keep me" })).body as Asked;
    const gone = (await callFunction(app, token, "ask", { content: "forget me" })).body as Asked;
    const deleted = await callFunction(app, token, "deleteConversation", {
      id: gone.conversationId,
    });
    expect(deleted.body).toEqual({ deleted: true });

    const conversations = (await call(app, "GET", "/api/entities/Conversation", { token }))
      .body as {
      id: string;
    }[];
    expect(conversations.map((row) => row.id)).toEqual([kept.conversationId]);
    const rows = await adminRows("Message");
    expect(rows.filter((row) => row.conversationId === gone.conversationId)).toEqual([]);
    expect(rows.filter((row) => row.conversationId === kept.conversationId)).toHaveLength(2);
  });

  it("purges the user's conversations and messages with the account", async () => {
    const client = createClient({ url: app.url });
    await client.auth.register("leaving-chatter@example.com", "a long enough password");
    const asked = (await client.fn("ask", { content: "bye" })) as Asked;
    const userId = (await client.auth.me()).user_id;
    await client.auth.deleteAccount();

    expect((await adminRows("Conversation")).filter((row) => row.ownerId === userId)).toEqual([]);
    expect((await adminRows("Message")).filter((row) => row.ownerId === userId)).toEqual([]);
    expect((await adminRows("Message")).some((row) => row.id === asked.assistantMessageId)).toBe(
      false,
    );
  });

  it("shows the reply live to a subscriber of the conversation", async () => {
    const token = await newUser();
    const asked = (await callFunction(app, token, "ask", { content: "first" })).body as Asked;
    const client = createClient({ url: app.url, token });
    let resolveReply: (rows: readonly MessageRow[]) => void = () => undefined;
    const replied = new Promise<readonly MessageRow[]>((resolve) => {
      resolveReply = resolve;
    });
    const subscription = client.subscribe(
      "Message",
      { where: { conversationId: asked.conversationId }, orderBy: "createdAt" },
      (rows) => {
        const list = rows as unknown as readonly MessageRow[];
        if (list.length === 4) resolveReply(list);
      },
    );
    try {
      expect((await subscription.ready).length).toBe(2);
      const second = (
        await callFunction(app, token, "ask", {
          conversationId: asked.conversationId,
          content: "second",
        })
      ).body as Asked;
      const rows = await replied;
      expect(rows.map((row) => [row.role, row.content])).toEqual([
        ["user", "first"],
        ["assistant", asked.reply],
        ["user", "second"],
        ["assistant", second.reply],
      ]);
    } finally {
      subscription.unsubscribe();
    }
  });
});
