// `npm run build:contracts`: compiles DevToken.sol with the npm solc and writes DevToken.artifact.json next to it,
// which is committed and what the runtime places on dev chains. Run it after changing DevToken.sol; the EVM tests
// fail while the artifact is not the source's.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { artifactText, compileDevTokenSource } from './compile-dev-token.js';
import { DEV_TOKEN_ARTIFACT } from './dev-token.js';

const artifact = compileDevTokenSource();
writeFileSync(DEV_TOKEN_ARTIFACT, artifactText(artifact));
process.stdout.write(`${fileURLToPath(DEV_TOKEN_ARTIFACT)}: DevToken, ${artifact.compiler}, ${(artifact.deployedBytecode.length - 2) / 2} bytes of runtime code\n`);
