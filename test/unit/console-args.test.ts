/** `npm run console`'s arguments: the CDK's `-c key=value`, or `--url`; the region of an execute-api URL. */
import { describe, expect, it } from 'vitest';
import { ConsoleSetupError, parseArgs, regionOfApiUrl, stackNameOf } from '#infra/console/locate';

describe('npm run console arguments', () => {
  it('reads the stage and region as the CDK does, the stage defaulting to dev', () => {
    expect(parseArgs(['-c', 'stage=prod', '--context', 'region=eu-west-1'])).toEqual({
      stage: 'prod',
      region: 'eu-west-1',
    });
    expect(parseArgs([])).toEqual({ stage: 'dev' });
  });

  it('takes the operator API url with --url, in either form', () => {
    const url = 'https://abc123.execute-api.eu-west-1.amazonaws.com/';
    expect(parseArgs(['--url', url])).toEqual({ stage: 'dev', url });
    expect(parseArgs([`--url=${url}`])).toEqual({ stage: 'dev', url });
  });

  it.each([
    [['-c', 'stage=qa'], 'stage: qa is not one of dev, prod'],
    [['-c', 'stage'], '-c takes key=value'],
    [['-c'], '-c needs a value'],
    [['--url', 'ftp://x'], 'is not an http(s) URL'],
    [['--url', 'not a url'], 'is not a URL'],
    [['--stage', 'dev'], 'Unknown argument --stage'],
  ])('refuses %j in one line', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(ConsoleSetupError);
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it("names the stage's stateless stack and the region of an execute-api URL", () => {
    expect(stackNameOf('dev')).toBe('BankPayments-dev-DepositsStateless');
    expect(regionOfApiUrl('https://abc123.execute-api.ap-south-1.amazonaws.com/')).toBe('ap-south-1');
    expect(regionOfApiUrl('https://ops.example.com/')).toBeUndefined();
  });
});
