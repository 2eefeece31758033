/**
 * The answers' examples in the OpenAPI documents (`shared/contracts/examples.ts`): every documented
 * answer, failures included, has one, of its documented schema (closed objects: a field the schema
 * lacks fails), with values a caller would see (no `"string"`, no date the reference page drew from
 * a pattern); and no example stands for a route or status the document does not have.
 */
import { describe, expect, it } from 'vitest';
import { contracts } from '#shared/contracts/contracts';
import { responseExamples } from '#shared/contracts/examples';
import { documents, expectDocumented } from '../support/contract.ts';

type Responses = Record<string, { content?: Record<string, { example?: unknown }> }>;

/** Every documented answer of every API: its route, status and the example the document gives it. */
const answers = Object.entries(documents).flatMap(([api, document]) =>
  Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, { responses: Responses }>).flatMap(([method, operation]) =>
      Object.entries(operation.responses).map(([status, answer]) => ({
        api,
        route: `${method.toUpperCase()} ${path}`,
        method,
        path,
        status,
        example: answer.content?.['application/json']?.example,
      })),
    ),
  ),
);

/** Every string in a value, with where it is. */
function strings(value: unknown, at = ''): { at: string; text: string }[] {
  if (typeof value === 'string') return [{ at, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => strings(item, `${at}[${index}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => strings(item, `${at}.${key}`));
  return [];
}

describe("the documents' answer examples", () => {
  it('every documented answer, failures included, has an example', () => {
    const without = answers
      .filter((answer) => answer.example === undefined)
      .map((a) => `${a.api} ${a.route} ${a.status}`);

    expect(answers.length).toBeGreaterThan(40);
    expect(without).toEqual([]);
  });

  it.each(answers.map((answer) => [`${answer.api} ${answer.route} ${answer.status}`, answer] as const))(
    '%s: the example is of its documented schema',
    (_name, answer) => {
      const status = answer.status === 'default' ? 599 : Number(answer.status);

      expect(() =>
        expectDocumented(answer.api, answer.method, answer.path, status, answer.example),
      ).not.toThrow();
    },
  );

  it('holds values a caller would see: no "string", no date drawn from a pattern', () => {
    const found = answers.flatMap((answer) =>
      strings(answer.example, `${answer.api} ${answer.route} ${answer.status}`),
    );

    const placeholders = found.filter(({ text }) => /^(string|example|test)$/i.test(text));
    const dates = found.filter(({ text }) => /^\d{4}-\d\d-\d\d/.test(text));
    const unlikely = dates.filter(({ text }) => {
      const year = Number(text.slice(0, 4));
      return Number.isNaN(Date.parse(text)) || year < 2024 || year > 2030;
    });

    expect(placeholders).toEqual([]);
    expect(dates.length).toBeGreaterThan(20);
    expect(unlikely).toEqual([]);
  });

  it('stands for no route or status a document lacks', () => {
    const documented = new Set(answers.map((answer) => `${answer.api} ${answer.route} ${answer.status}`));

    const stale = Object.entries(responseExamples).flatMap(([api, routes]) =>
      Object.entries(routes).flatMap(([route, byStatus]) =>
        Object.keys(byStatus)
          .map((status) => `${api} ${route} ${status}`)
          .filter((name) => !documented.has(name)),
      ),
    );

    expect(Object.keys(responseExamples).sort()).toEqual(Object.keys(contracts).sort());
    expect(stale).toEqual([]);
  });
});
