import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentOpenAPIDocument } from "./openapi.js";
import { docPageEntrySchema, errorEnvelopeSchema, templateEntrySchema } from "./schemas.js";

describe("createAgentOpenAPIDocument", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    for (const document of [
      createAgentOpenAPIDocument(),
      createAgentOpenAPIDocument({ serverURL: "https://svc.example.com" }),
    ]) {
      const result = await validator.validate(structuredClone(document));
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(validator.version).toBe("3.1");
    }
    // The validator is not vacuous: a broken document fails.
    const { info: _info, ...broken } = createAgentOpenAPIDocument();
    expect((await new Validator().validate(structuredClone(broken))).valid).toBe(false);
  });

  it("carries version 1.0.0 and the MIT licence", () => {
    const document = createAgentOpenAPIDocument();
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
    expect(document.info.license).toEqual({ name: "MIT", identifier: "MIT" });
  });

  it("names the operations as the spec does", () => {
    const document = createAgentOpenAPIDocument();
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(
        ([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`,
      ),
    );
    expect(operations).toEqual([
      "GET /agent/v1/docs listSvcDocs",
      "GET /agent/v1/docs/search searchSvcDocs",
      "GET /agent/v1/docs/read readSvcDoc",
      "GET /agent/v1/templates listSvcTemplates",
      "GET /agent/v1/skill getSvcSkill",
      "POST /mcp callSvcMcp",
      "GET /mcp openSvcMcpStream",
    ]);
  });

  it("describes GET /mcp as always 405 with Allow", () => {
    const get = createAgentOpenAPIDocument().paths["/mcp"]?.get;
    expect(Object.keys(get?.responses ?? {})).toEqual(["405"]);
    expect(get?.responses["405"]).toMatchObject({ headers: { Allow: expect.anything() } });
  });

  it("documents the search parameters from the zod schema", () => {
    const search = createAgentOpenAPIDocument().paths["/agent/v1/docs/search"]?.get;
    expect(search?.parameters).toEqual([
      expect.objectContaining({
        name: "q",
        in: "query",
        required: true,
        schema: { type: "string", minLength: 1, maxLength: 500 },
      }),
      expect.objectContaining({
        name: "limit",
        in: "query",
        required: false,
        schema: { type: "integer", minimum: 1, maximum: 50, default: 10 },
      }),
    ]);
  });

  it.each([
    ["DocPageEntry", docPageEntrySchema],
    ["TemplateEntry", templateEntrySchema],
    ["ErrorEnvelope", errorEnvelopeSchema],
  ])("generates the %s schema from zod", (id, schema) => {
    const { $schema: _schema, ...generated } = z.toJSONSchema(schema);
    expect(createAgentOpenAPIDocument().components.schemas[id]).toEqual(generated);
  });

  it("lists the spec's page entry fields, summary optional", () => {
    const entry = createAgentOpenAPIDocument().components.schemas.DocPageEntry;
    expect(entry).toMatchObject({
      required: ["title", "url", "markdownUrl", "path"],
      properties: {
        url: { type: "string", format: "uri" },
        markdownUrl: { type: "string", format: "uri" },
      },
    });
  });
});
