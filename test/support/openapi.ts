// Holds real responses to the served OpenAPI document: its media type, its schema (with ajv) and its
// required headers. The document is dereferenced first, so each response carries its schema inline.
import Ajv2020, { type AnySchema, type ValidateFunction } from 'ajv/dist/2020';
import type { Express } from 'express';
import request, { type Response } from 'supertest';
import { dereferenceOpenApi } from './openapi-parser';

/* eslint-disable @typescript-eslint/no-explicit-any -- OpenAPI documents are walked as plain JSON here */
export type OpenApiDocument = Record<string, any>;
type ResponseObject = { description: string; headers?: Record<string, any>; content?: Record<string, { schema: AnySchema }> };

/** The document as the app serves it. */
export async function servedDocument(app: Express): Promise<OpenApiDocument> {
  const res = await request(app).get('/v2/openapi.json').expect(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.body;
}

/** The document with every $ref replaced by what it points at. */
export function dereferenced(document: OpenApiDocument): Promise<OpenApiDocument> {
  return dereferenceOpenApi(document);
}

// RFC 3339 full-date: four-digit year, a month, and a day that month has.
function isFullDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/**
 * Ajv for JSON Schema 2020-12 in strict mode (a misspelt keyword is an error, not a silent pass), with the
 * formats the document uses; ajv ships none, and these follow RFC 3339 and the OpenAPI format registry.
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  ajv.addFormat('date', isFullDate);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 63 });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  return ajv;
}

/** Checks responses against one dereferenced document. */
export class ResponseChecker {
  private readonly ajv = createAjv();
  private readonly compiled = new Map<unknown, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {}

  /**
   * The response the document gives for this status: the operation's own, or (for a path or method the
   * document has no operation for, as with 404 and 405) the shared response in components whose problem
   * schema pins that status.
   */
  documented(status: number, path?: string): ResponseObject {
    const own = path && this.document.paths[path]?.get?.responses?.[String(status)];
    if (own) return own;
    const shared = Object.values(this.document.components.responses as Record<string, ResponseObject>).find(
      (response) => (response.content?.['application/problem+json']?.schema as any)?.properties?.status?.const === status,
    );
    if (!shared) throw new Error(`the document has no response for status ${status}${path ? ` of GET ${path}` : ''}`);
    return shared;
  }

  /** Asserts that a real response matches what the document says of its status: media type, body and headers. */
  expectDocumented(res: Response, path?: string): unknown {
    const response = this.documented(res.status, path);
    const [[mediaType, media]] = Object.entries(response.content ?? {});
    expect(res.headers['content-type']?.split(';')[0]).toBe(mediaType);
    const body = JSON.parse(res.text);
    this.expectValid(media.schema, body, `body of ${res.status} ${path ?? ''}`);
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = res.headers[name.toLowerCase()];
      if (header.required) expect({ header: name, present: value !== undefined }).toEqual({ header: name, present: true });
      if (value !== undefined) this.expectValid(header.schema, value, `header ${name}`);
    }
    return body;
  }

  /** Asserts that a value is valid against a schema of the document, showing ajv's errors when not. */
  expectValid(schema: AnySchema, value: unknown, what: string): void {
    const validate = this.validator(schema);
    if (!validate(value)) {
      // The first few are enough (a renamed key fails in every row); params name the key or value at fault.
      const errors = validate.errors!.slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
      throw new Error(`${what} does not match the document (${validate.errors!.length} errors):\n${errors.join('\n')}`);
    }
  }

  isValid(schema: AnySchema, value: unknown): boolean {
    return this.validator(schema)(value);
  }

  private validator(schema: AnySchema): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) this.compiled.set(schema, (validate = this.ajv.compile(schema)));
    return validate;
  }
}
