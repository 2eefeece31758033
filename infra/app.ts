/**
 * The CDK app (`npx cdk deploy`): the same topology as `npm start`, on AWS. Settings come from the
 * CDK context; see infra/cdk/context.ts (the keys) and docs/deploying.md.
 */
import { App } from 'aws-cdk-lib';
import { DeploymentConfigError } from './cdk/config.ts';
import { defineDeployment } from './cdk/deployment.ts';

const app = new App();
try {
  defineDeployment(app);
} catch (error) {
  if (!(error instanceof DeploymentConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
app.synth();
