/**
 * Dapi's official Java SDK (dapi-co/dapi-java at 269a842, header version 1.6.0; docs/provider-v2.md),
 * as the unit tests play it against the in-process sandbox in the `dapi-v2` dialect. Written by hand
 * from reading `src/main/java/co/dapi/DapiRequest.java` (`POST https://api.dapi.com/v2<action>`, the
 * headers `content-type: application/json`, `X-Dapi-Library: dapi-java`, `X-Dapi-Library-Version:
 * 1.6.0`; OkHttp 4.9.3 replaces the content type by its body's, `application/json; charset=utf-8`, and
 * sends its own `User-Agent`), `Auth.java`, `Metadata.java`, `Payment.java`, `Data.java`,
 * `DapiApp.java`, `TimeoutInterceptor.java` and the request classes in them: each has a `private
 * final String action`, the call's path, which Gson writes into every body (the interceptor reads it
 * back to pick its timeout). The rest Java shares with C# (test/support/typed-sdk.ts).
 *
 * Its response types: `response/*.java` and `types/*.java`, as in typed-sdk-types.ts, plus `coolDownPeriod`
 * (a `Range`: `int` value, `String` unit) on `CreateTransferResponse` and `TransferAutoflowResponse`,
 * which only Java declares. Gson reads an unknown enum value as null (and `getStatus() == null` without
 * a `type` as `UNEXPECTED_RESPONSE`), a fraction in an `int` as a `JsonSyntaxException`.
 */
import * as z from 'zod';
import { typedApp } from './typed-sdk.ts';
import { Range, TypedTypes } from './typed-sdk-types.ts';

export const java = typedApp({
  headers: {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'okhttp/4.9.3',
    'x-dapi-library': 'dapi-java',
    'x-dapi-library-version': '1.6.0',
  },
  action: true,
});

export const JavaTypes = {
  ...TypedTypes,
  /** `CreateTransferResponse` refused in a cool-down: its `coolDownPeriod`, a whole number of its unit. */
  CoolDownRefusal: TypedTypes.Refusal.extend({
    type: z.literal('BENEFICIARY_COOL_DOWN_PERIOD'),
    coolDownPeriod: Range.extend({ value: Range.shape.value.min(1) }),
  }),
} as const;
