/**
 * Dapi's official C# SDK (dapi-co/dapi-csharp at f7a966b, 1.3.0; docs/provider-v2.md), as the unit
 * tests play it against the in-process sandbox in the `dapi-v2` dialect. Written by hand from
 * reading `src/Dapi/Products/DapiRequest.cs` (`POST https://api.dapi.com/v2<action>` with RestSharp
 * 106.15: `AddJsonBody`, so `Content-Type: application/json`, RestSharp's own `User-Agent`; the headers
 * `X-Dapi-Library: dapi-csharp`, `X-Dapi-Library-Version: 1.3.0`; Newtonsoft with
 * `NullValueHandling.Ignore`), `Auth.cs`, `Metadata.cs`, `Payment.cs`, `Data.cs` and `src/Dapi/DapiApp.cs`.
 * Each request class's `action` is `internal`, which Newtonsoft does not write: no body names its call.
 * The rest C# shares with Java (test/support/typed-sdk.ts).
 *
 * Its response types: `src/Dapi/Response/*.cs` and `src/Dapi/Types/*.cs`, as in typed-sdk-types.ts (no
 * `coolDownPeriod`: Newtonsoft passes over it). Every enum carries `StringEnumConverter`, which throws
 * on a value outside it (`APIStatus`, `UserInputID`, `BeneficiaryType`, `BeneficiaryStatus`: no
 * `pending`); an `int` read from a number with a point throws too.
 */
import { typedApp } from './typed-sdk.ts';
import { TypedTypes } from './typed-sdk-types.ts';

export const csharp = typedApp({
  headers: {
    'content-type': 'application/json',
    'user-agent': 'RestSharp/106.15.0.0',
    'x-dapi-library': 'dapi-csharp',
    'x-dapi-library-version': '1.3.0',
  },
  action: false,
});

export const CSharpTypes = TypedTypes;
