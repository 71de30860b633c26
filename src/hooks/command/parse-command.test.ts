import { describe, expect, it } from 'vitest';
import { MAX_PACKAGES } from '../types.js';
import { parseCommandLine } from './parse-command.js';

/**
 * One row: the command line, whether it is an install, the packages as `ecosystem name version`
 * (`-` for no version; the version may hold spaces), and the skipped specs as `spec => why`.
 */
type Row = [line: string, isInstall: boolean, installs?: string[], skipped?: string[]];

const I = true;
const N = false;

const LOCAL = 'local path';
const ARCHIVE = 'local archive file';
const URL = 'URL';
const SCM = 'source-control source';
const SHELL = 'shell expansion, value unknown';
const REQ = 'requirements file not read';

const npm: Row[] = [
  ['npm install lodash', I, ['npm lodash -']],
  ['npm i lodash@^4.17.21', I, ['npm lodash ^4.17.21']],
  ['npm add @scope/pkg@1', I, ['npm @scope/pkg 1']],
  ['npm i @types/node', I, ['npm @types/node -']],
  ['npm i alias@npm:real@1', I, ['npm real 1']],
  ['npm i my-react@npm:@preact/compat@17.1.2', I, ['npm @preact/compat 17.1.2']],
  ['npm i lodash@latest', I, ['npm lodash latest']],
  ['npm install --tag beta my-lib', I, ['npm my-lib beta']],
  ['npm i --tag=next a b@1.2.3', I, ['npm a next', 'npm b 1.2.3']],
  ['npm --tag beta install my-lib', I, ['npm my-lib beta']],
  ['npm i my-lib --tag beta --tag rc', I, ['npm my-lib rc']],
  ['npm i -g npm@latest', I, ['npm npm latest']],
  [
    'npm install --save-dev typescript @types/node eslint',
    I,
    ['npm typescript -', 'npm @types/node -', 'npm eslint -'],
  ],
  ['cd app && npm i -D typescript@5 @types/node', I, ['npm typescript 5', 'npm @types/node -']],
  ['npm install', I, []],
  ['npm ci', I, []],
  ['npm clean-install --no-audit', I, []],
  ['npm run install', N],
  ['npm test', N],
  ['npm run build && npm test', N],
  ['npm uninstall lodash', N],
  ['npm view lodash versions', N],
  ['npm install --registry https://registry.example.com left-pad', I, ['npm left-pad -']],
  ['npm install --registry=https://registry.example.com left-pad', I, ['npm left-pad -']],
  ['npm --prefix app install express', I, ['npm express -']],
  ['npm i -w packages/web react', I, ['npm react -']],
  ['npm i --workspace=web react-dom@18.2.0', I, ['npm react-dom 18.2.0']],
  ['npm i --omit dev --tag beta left-pad', I, ['npm left-pad beta']],
  ['npm i ./local-pkg', I, [], [`./local-pkg => ${LOCAL}`]],
  ['npm i ../shared', I, [], [`../shared => ${LOCAL}`]],
  ['npm i /opt/pkgs/thing', I, [], [`/opt/pkgs/thing => ${LOCAL}`]],
  ['npm i ~/pkgs/x', I, [], [`~/pkgs/x => ${LOCAL}`]],
  ['npm i .', I, [], [`. => ${LOCAL}`]],
  ['npm i file:../x', I, [], [`file:../x => ${LOCAL}`]],
  ['npm i pkg-1.0.0.tgz', I, [], [`pkg-1.0.0.tgz => ${ARCHIVE}`]],
  ['npm i ./dist/pkg-1.0.0.tgz', I, [], [`./dist/pkg-1.0.0.tgz => ${LOCAL}`]],
  ['npm i https://example.com/pkg.tgz', I, [], [`https://example.com/pkg.tgz => ${URL}`]],
  ['npm i git+https://github.com/user/repo.git', I, [], [`git+https://github.com/user/repo.git => ${SCM}`]],
  ['npm i git://github.com/user/repo.git', I, [], [`git://github.com/user/repo.git => ${SCM}`]],
  ['npm i github:user/repo', I, [], [`github:user/repo => ${SCM}`]],
  ['npm i user/repo', I, [], [`user/repo => ${SCM}`]],
  ['npm i user/repo#v1.0.0 lodash', I, ['npm lodash -'], [`user/repo#v1.0.0 => ${SCM}`]],
  ['npm i git@github.com:user/repo.git', I, [], [`git@github.com:user/repo.git => ${SCM}`]],
  ['npm i foo@file:../foo', I, [], [`foo@file:../foo => ${LOCAL}`]],
  ['npm i foo@github:user/foo', I, [], [`foo@github:user/foo => ${SCM}`]],
  ['npm i foo@user/foo', I, [], [`foo@user/foo => ${SCM}`]],
  ['npm i foo@https://example.com/foo.tgz', I, [], [`foo@https://example.com/foo.tgz => ${URL}`]],
  ['npm i "lodash@>=4 <5"', I, ['npm lodash >=4 <5']],
  ['npm i lodash@*', I, ['npm lodash *']],
  ['npm isntall lodash', I, ['npm lodash -']],
  ['npm in lodash', I, ['npm lodash -']],
  ['npm install-test lodash', I, ['npm lodash -']],
  ['npm.cmd install lodash', I, ['npm lodash -']],
  ['NPM.CMD install lodash', I, ['npm lodash -']],
  ['npm.exe i lodash', I, ['npm lodash -']],
  ['/usr/local/bin/npm i lodash', I, ['npm lodash -']],
  ['"C:\\Program Files\\nodejs\\npm.cmd" install lodash', I, ['npm lodash -']],
  ['cnpm install lodash', I, ['npm lodash -']],
  ['npm i --save-exact -- react', I, ['npm react -']],
  ['npm i $PKG', I, [], [`$PKG => ${SHELL}`]],
  ['npm i "$PKG"', I, [], [`$PKG => ${SHELL}`]],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
  ['npm i ${PKG}@latest', I, [], [`$PKG@latest => ${SHELL}`]],
  ['npm install --global @angular/cli@17', I, ['npm @angular/cli 17']],
  ['npm i jsr-pkg@jsr:@std/path', I, [], ['jsr-pkg@jsr:@std/path => not an npm registry source (jsr:)']],
  ['npm i Not_A/Valid/Name', I, [], [`Not_A/Valid/Name => ${SCM}`]],
  ['npm i .hidden', I, [], ['.hidden => not a package name']],
  ['npx create-react-app my-app', N],
  ['npm exec -- eslint .', N],
  ['npm --version', N],
  ['npm', N],
];

const yarnPnpmBun: Row[] = [
  ['yarn add lodash', I, ['npm lodash -']],
  ['yarn add -D @types/react@^18 typescript', I, ['npm @types/react ^18', 'npm typescript -']],
  ['yarn', N],
  ['yarn install', I, []],
  ['yarn install --frozen-lockfile', I, []],
  ['yarn global add serve', I, ['npm serve -']],
  ['yarn workspace @app/web add react@18', I, ['npm react 18']],
  ['yarn add lodash | tee log', I, ['npm lodash -']],
  ['yarn dlx create-vite my-app', N],
  ['yarn build', N],
  ['yarn --cwd packages/api add zod', I, ['npm zod -']],
  ['yarnpkg add chalk@5', I, ['npm chalk 5']],
  ['NODE_ENV=dev pnpm add -w react@^18', I, ['npm react ^18']],
  ['pnpm add --filter web axios', I, ['npm axios -']],
  ['pnpm -F web add axios@1.6.0', I, ['npm axios 1.6.0']],
  ['pnpm i', I, []],
  ['pnpm install --frozen-lockfile', I, []],
  ['pnpm dlx create-next-app@latest', N],
  ['pnpm -C apps/web add next@14', I, ['npm next 14']],
  ['pnpm add -D vitest@^1 @vitest/coverage-v8', I, ['npm vitest ^1', 'npm @vitest/coverage-v8 -']],
  ['pnpm add @app/ui@workspace:*', I, [], [`@app/ui@workspace:* => ${LOCAL}`]],
  ['pnpm add react@catalog:', I, ['npm react -']],
  ['pnpm run dev', N],
  ['bun add zod', I, ['npm zod -']],
  ['bun a elysia', I, ['npm elysia -']],
  ['bun install', I, []],
  ['bun add -d @types/bun', I, ['npm @types/bun -']],
  ['bun i hono@4.0.0 --cwd api', I, ['npm hono 4.0.0']],
  ['bunx cowsay hi', N],
  ['bun run dev', N],
];

const pip: Row[] = [
  ['pip install requests', I, ['PyPI requests -']],
  ['pip install requests==2.31.0', I, ['PyPI requests ==2.31.0']],
  ['pip3 install "pkg>=1,<2"', I, ['PyPI pkg >=1,<2']],
  ["pip install 'pkg[extra]>=2'", I, ['PyPI pkg >=2']],
  ['pip install "requests[socks,security] == 2.31.0"', I, ['PyPI requests ==2.31.0']],
  ['pip install pkg~=1.4', I, ['PyPI pkg ~=1.4']],
  ['pip install "pkg!=1.5,>=1.0"', I, ['PyPI pkg !=1.5,>=1.0']],
  ['pip install "pkg (>=1.0)"', I, ['PyPI pkg >=1.0']],
  ['pip install "pkg @ https://example.com/pkg.whl"', I, [], [`pkg @ https://example.com/pkg.whl => ${URL}`]],
  [
    'pip install "pkg @ git+https://github.com/u/r.git"',
    I,
    [],
    [`pkg @ git+https://github.com/u/r.git => ${SCM}`],
  ],
  ['pip install "pkg @ file:///tmp/pkg"', I, [], [`pkg @ file:///tmp/pkg => ${LOCAL}`]],
  ['pip install git+https://github.com/u/r.git', I, [], [`git+https://github.com/u/r.git => ${SCM}`]],
  ['pip install https://example.com/x.whl', I, [], [`https://example.com/x.whl => ${URL}`]],
  ['pip install ./dist/x-1.0-py3-none-any.whl', I, [], [`./dist/x-1.0-py3-none-any.whl => ${LOCAL}`]],
  ['pip install x-1.0.tar.gz', I, [], [`x-1.0.tar.gz => ${ARCHIVE}`]],
  ['pip install x-1.0-py3-none-any.whl', I, [], [`x-1.0-py3-none-any.whl => ${ARCHIVE}`]],
  ['pip install -e .', I, [], [`. => ${LOCAL}`]],
  ['pip install -e ".[dev,test]"', I, [], [`.[dev,test] => ${LOCAL}`]],
  ['pip install .[dev]', I, [], [`.[dev] => ${LOCAL}`]],
  ['python3 -m pip install --user -U "black==24.*"', I, ['PyPI black ==24.*']],
  ['pip install "numpy<2" pandas', I, ['PyPI numpy <2', 'PyPI pandas -']],
  ['pip install --editable=./lib', I, [], [`./lib => ${LOCAL}`]],
  [
    'pip install -e git+https://github.com/u/r.git#egg=r',
    I,
    [],
    [`git+https://github.com/u/r.git#egg=r => ${SCM}`],
  ],
  ['pip install -r requirements.txt', I, [], [`requirements.txt => ${REQ}`]],
  [
    'pip install -r requirements.txt -c constraints.txt flask',
    I,
    ['PyPI flask -'],
    [`requirements.txt => ${REQ}`],
  ],
  ['pip install --requirement=dev-requirements.txt', I, [], [`dev-requirements.txt => ${REQ}`]],
  ['pip install -Ur requirements.txt', I, [], [`requirements.txt => ${REQ}`]],
  ['pip install -rrequirements.txt', I, [], [`requirements.txt => ${REQ}`]],
  ['pip install -i https://pypi.example.com/simple private-pkg', I, ['PyPI private-pkg -']],
  ['pip install --extra-index-url https://x.example/simple numpy', I, ['PyPI numpy -']],
  ['pip install --user --upgrade --no-cache-dir black', I, ['PyPI black -']],
  ['pip install -U pip setuptools wheel', I, ['PyPI pip -', 'PyPI setuptools -', 'PyPI wheel -']],
  // Unquoted, `>=1.0` is a redirection to the file `=1.0`: the shell installs pkg unpinned.
  ['pip install pkg>=1.0', I, ['PyPI pkg -']],
  ['pip list', N],
  ['pip freeze > requirements.txt', N],
  ['pip download requests', N],
  ['pip uninstall -y requests', N],
  ['pip show requests', N],
  ['pip3.11 install httpx', I, ['PyPI httpx -']],
  ['pip-3.12 install httpx', I, ['PyPI httpx -']],
  ['pip install "django>=4; python_version>\'3.8\'"', I, ['PyPI django >=4']],
  ['pip install zope.interface', I, ['PyPI zope.interface -']],
  ['pip install src/mypkg', I, [], [`src/mypkg => ${LOCAL}`]],
  ['pip install --target ./vendor requests', I, ['PyPI requests -']],
  ['pip --disable-pip-version-check install rich', I, ['PyPI rich -']],
  ['pip --python /usr/bin/python3 install rich', I, ['PyPI rich -']],
  ['sudo -E pip3 install --upgrade pip requests==2.31.0', I, ['PyPI pip -', 'PyPI requests ==2.31.0']],
  ['pip install -q torch --index-url https://download.pytorch.org/whl/cpu', I, ['PyPI torch -']],
  ['pip install pkg===1.0.0-local', I, ['PyPI pkg ===1.0.0-local']],
  ['pip install -- -weird', I, [], ['-weird => not a package name']],
];

const launchers: Row[] = [
  ['python -m pip install "django>=4,<5" \'flask[async]\'', I, ['PyPI django >=4,<5', 'PyPI flask -']],
  ['python3 -m pip install --upgrade pip', I, ['PyPI pip -']],
  ['py -m pip install requests', I, ['PyPI requests -']],
  ['py -3.11 -m pip install requests', I, ['PyPI requests -']],
  ['python3.12 -m pip install numpy==1.26.4', I, ['PyPI numpy ==1.26.4']],
  ['python.exe -m pip install numpy', I, ['PyPI numpy -']],
  ['python -Im pip install rich', I, ['PyPI rich -']],
  ['python -X utf8 -m pip install rich', I, ['PyPI rich -']],
  ['python -m venv .venv && .venv/bin/pip install flask', I, ['PyPI flask -']],
  ['.venv/bin/python -m pip install -r requirements.txt', I, [], [`requirements.txt => ${REQ}`]],
  ['python -m pipx install black', I, ['PyPI black -']],
  ['python -m pytest -q', N],
  ['python script.py install foo', N],
  ["python -c \"import pip; pip.main(['install', 'x'])\"", N],
  ['python -m pip list', N],
];

const pythonTools: Row[] = [
  ['pipx install black', I, ['PyPI black -']],
  ['pipx install "ruff==0.4.0"', I, ['PyPI ruff ==0.4.0']],
  ['pipx run cowsay moo', N],
  ['poetry add requests@^2.31', I, ['PyPI requests ^2.31']],
  ['poetry add pendulum@latest', I, ['PyPI pendulum latest']],
  ['poetry add --group dev pytest', I, ['PyPI pytest -']],
  ['poetry add -G dev "pytest>=7"', I, ['PyPI pytest >=7']],
  ['poetry install', I, []],
  ['poetry install --with dev', I, []],
  ['poetry add git+https://github.com/u/r.git', I, [], [`git+https://github.com/u/r.git => ${SCM}`]],
  ['poetry add ./libs/mylib', I, [], [`./libs/mylib => ${LOCAL}`]],
  ['poetry run pytest', N],
  ['poetry -C backend add httpx', I, ['PyPI httpx -']],
  ['pdm add httpx', I, ['PyPI httpx -']],
  ['pdm add -G test pytest-cov', I, ['PyPI pytest-cov -']],
  ['pdm add -e ./local', I, [], [`./local => ${LOCAL}`]],
  ['pdm install', I, []],
  ['uv add fastapi', I, ['PyPI fastapi -']],
  ['uv add "pydantic>=2"', I, ['PyPI pydantic >=2']],
  ['uv add ruff --dev', I, ['PyPI ruff -']],
  ['uv add --group lint ruff', I, ['PyPI ruff -']],
  ['uv add pkg@^1.2', I, ['PyPI pkg ^1.2']],
  ['uv pip install -r requirements.txt ruff', I, ['PyPI ruff -'], [`requirements.txt => ${REQ}`]],
  ['uv pip install "httpx==0.27.0"', I, ['PyPI httpx ==0.27.0']],
  ['uv pip install -e .', I, [], [`. => ${LOCAL}`]],
  ['uv add git+https://github.com/u/r', I, [], [`git+https://github.com/u/r => ${SCM}`]],
  ['uv --directory api add sqlalchemy', I, ['PyPI sqlalchemy -']],
  ['uv sync', N],
  ['uv run pytest', N],
  ['uv pip list', N],
  // The spec lists `uv add` and `uv pip install` only.
  ['uv tool install ruff', N],
];

const cargo: Row[] = [
  ['cargo add serde', I, ['crates.io serde -']],
  ['cargo add serde@1.0', I, ['crates.io serde 1.0']],
  ['cargo add serde@=1.0.3', I, ['crates.io serde =1.0.3']],
  ['cargo add serde --features derive', I, ['crates.io serde -']],
  ['cargo add serde serde_json -F serde/derive', I, ['crates.io serde -', 'crates.io serde_json -']],
  ['cargo add tokio@1 --features=full', I, ['crates.io tokio 1']],
  ['cargo add --dev pretty_assertions', I, ['crates.io pretty_assertions -']],
  ['cargo add mylib --path ../mylib', I, [], [`../mylib => ${LOCAL}`, 'mylib => from a local path (--path)']],
  ['cargo add --path ../x', I, [], [`../x => ${LOCAL}`]],
  [
    'cargo add foo --git https://github.com/u/foo',
    I,
    [],
    [`https://github.com/u/foo => ${SCM}`, 'foo => from a source-control source (--git)'],
  ],
  ['cargo add serde --vers 1.0.190', I, ['crates.io serde 1.0.190']],
  ['cargo +nightly add rayon', I, ['crates.io rayon -']],
  ['cargo add -p my-crate anyhow', I, ['crates.io anyhow -']],
  ['cargo build --release', N],
  // The spec lists `cargo add` only: `cargo install` builds a binary and is not checked.
  ['cargo install ripgrep', N],
  ['cargo test', N],
];

const go: Row[] = [
  ['go get github.com/gin-gonic/gin', I, ['Go github.com/gin-gonic/gin -']],
  ['go get github.com/gin-gonic/gin@v1.9.1', I, ['Go github.com/gin-gonic/gin v1.9.1']],
  ['go install golang.org/x/tools/gopls@latest', I, ['Go golang.org/x/tools/gopls latest']],
  ['go get -u ./...', I, [], [`./... => ${LOCAL}`]],
  ['go get .', I, [], [`. => ${LOCAL}`]],
  ['go install ./cmd/server', I, [], [`./cmd/server => ${LOCAL}`]],
  ['go get golang.org/x/text@none', I, [], ['golang.org/x/text@none => removal (@none), not an install']],
  ['go get go@1.22', I, [], ['go@1.22 => not a remote module path (standard library, toolchain or local)']],
  ['go get -u=patch github.com/x/y', I, ['Go github.com/x/y -']],
  ['go install -tags netgo -ldflags "-s -w" github.com/x/tool@v1.0.0', I, ['Go github.com/x/tool v1.0.0']],
  ['go get github.com/x/y/...@v1.2.3', I, ['Go github.com/x/y v1.2.3']],
  [
    'go install github.com/golangci/golangci-lint/cmd/golangci-lint@v1.55.2',
    I,
    ['Go github.com/golangci/golangci-lint/cmd/golangci-lint v1.55.2'],
  ],
  ['go get', I, []],
  ['go build ./...', N],
  ['go mod tidy', N],
  ['go run github.com/x/y@latest', N],
];

const dotnet: Row[] = [
  ['dotnet add package Newtonsoft.Json', I, ['NuGet Newtonsoft.Json -']],
  ['dotnet add package Serilog --version 3.1.1', I, ['NuGet Serilog 3.1.1']],
  ['dotnet add package Serilog -v 3.1.1', I, ['NuGet Serilog 3.1.1']],
  ['dotnet add package Dapper --version=2.1.28', I, ['NuGet Dapper 2.1.28']],
  ['dotnet add src/App.csproj package Newtonsoft.Json --version 13.0.3', I, ['NuGet Newtonsoft.Json 13.0.3']],
  ['dotnet add App.csproj package Polly --prerelease', I, ['NuGet Polly -']],
  [
    'dotnet add package Serilog.Sinks.File -s https://api.nuget.org/v3/index.json',
    I,
    ['NuGet Serilog.Sinks.File -'],
  ],
  ['dotnet package add Newtonsoft.Json@13.0.3', I, ['NuGet Newtonsoft.Json 13.0.3']],
  ['dotnet add reference ../Lib/Lib.csproj', N],
  ['dotnet add App.csproj reference ../Lib/Lib.csproj', N],
  ['dotnet build', N],
  ['dotnet restore', N],
];

const lines: Row[] = [
  ['npm i a; pip install b', I, ['npm a -', 'PyPI b -']],
  ['npm i a || yarn add b', I, ['npm a -', 'npm b -']],
  ['npm i a & pip install b', I, ['npm a -', 'PyPI b -']],
  ['npm i a\npip install b', I, ['npm a -', 'PyPI b -']],
  ['npm i a\r\npip install b', I, ['npm a -', 'PyPI b -']],
  ['(cd web && npm i a)', I, ['npm a -']],
  ['npm i a && npm i a', I, ['npm a -']],
  ['npm i lodash \\\n  react', I, ['npm lodash -', 'npm react -']],
  ['echo "npm install x"', N],
  ["echo 'pip install requests' > README.md", N],
  ['git commit -m "npm i lodash"', N],
  ['git commit -m "fix: run\nnpm i lodash"', N],
  ['bash -c "npm i x"', I, ['npm x -']],
  ["sh -c 'pip install y'", I, ['PyPI y -']],
  ['bash -lc "cd app && npm ci && npm i zod"', I, ['npm zod -']],
  ['bash ./install.sh', N],
  ['eval "npm i z"', I, ['npm z -']],
  ['cmd /c npm install lodash', I, ['npm lodash -']],
  ['powershell -NoProfile -Command "npm install lodash"', I, ['npm lodash -']],
  ['npm i lodash # install lodash', I, ['npm lodash -']],
  ['# npm i evil', N],
  ['# setup\nnpm i a', I, ['npm a -']],
  ['sudo npm i -g pm2', I, ['npm pm2 -']],
  ['sudo -u deploy npm i express', I, ['npm express -']],
  ['sudo -E env PATH=$PATH npm i express', I, ['npm express -']],
  ['sudo -l', N],
  ['env NODE_ENV=production npm i express', I, ['npm express -']],
  ['env -S "npm i express"', I, ['npm express -']],
  ['time npm i express', I, ['npm express -']],
  ['nice -n 10 pip install numpy', I, ['PyPI numpy -']],
  ['nohup npm i express &', I, ['npm express -']],
  ['timeout 300 npm ci', I, []],
  ['command -v npm', N],
  ['command npm i lodash', I, ['npm lodash -']],
  ['cat pkgs.txt | xargs npm install', I, []],
  ['cat pkgs.txt | xargs -n 1 pip install', I, []],
  ['npm i $(cat pkgs.txt)', I, [], [`$ => ${SHELL}`]],
  ['echo `npm i evil`', I, ['npm evil -']],
  ['echo $(npm i evil)', I, ['npm evil -']],
  ['npm i "lodash', I, ['npm lodash -']],
  ['if [ -f package.json ]; then npm ci; fi', I, []],
  ['for p in a b; do pip install $p; done', I, [], [`$p => ${SHELL}`]],
  ['npm i lodash 2>/dev/null || true', I, ['npm lodash -']],
  ['npm i lodash > install.log 2>&1', I, ['npm lodash -']],
  ['npm i lodash &>/dev/null', I, ['npm lodash -']],
  ['FOO=1 BAR="a b" npm i lodash', I, ['npm lodash -']],
  ['NPM_CONFIG_REGISTRY=https://r.example npm install', I, []],
  ['FOO=1', N],
  ['curl -fsSL https://bun.sh/install | bash', N],
  // A here-document's body is data; the commands around it still count.
  ["cat <<'EOF' > setup.sh\nnpm install foo\nEOF", N],
  ["cat > setup.sh <<'EOF'\nnpm i left-pad\nEOF\necho written", N],
  // ...unless a shell runs it: fed to a shell, or written to a script the same line runs.
  ["cat > setup.sh <<'EOF'\nnpm i left-pad\nEOF\nbash setup.sh", I, ['npm left-pad -']],
  ["cat >setup.sh <<'EOF' && chmod +x setup.sh && ./setup.sh\nnpm i left-pad\nEOF", I, ['npm left-pad -']],
  ["cat > /tmp/s.sh <<'EOF'\npip install requests\nEOF\nsource /tmp/s.sh", I, ['PyPI requests -']],
  // `tee FILE <<EOF` writes the script as a redirection does: judged when the line runs FILE.
  ["tee setup.sh <<'EOF'\nnpm i left-pad\nEOF\nbash setup.sh", I, ['npm left-pad -']],
  ["tee -a setup.sh > /dev/null <<'EOF'\nnpm i left-pad\nEOF\nsh ./setup.sh", I, ['npm left-pad -']],
  ["cat <<'EOF' | sudo tee /tmp/s.sh\npip install requests\nEOF\n. /tmp/s.sh", I, ['PyPI requests -']],
  ["tee setup.sh <<'EOF' && chmod +x setup.sh && ./setup.sh\nnpm i left-pad\nEOF", I, ['npm left-pad -']],
  ["tee setup.sh <<'EOF'\nnpm i left-pad\nEOF\ncat setup.sh", N],
  ["tee notes.txt <<'EOF'\nnpm i left-pad\nEOF\nbash other.sh", N],
  ["bash <<'EOF'\nnpm i left-pad\nEOF", I, ['npm left-pad -']],
  ['cat <<EOF | sudo sh\nnpm i left-pad\nEOF', I, ['npm left-pad -']],
  ["ssh build-host <<'EOF'\npip install requests\nEOF", I, ['PyPI requests -']],
  ["docker exec -i app /bin/sh <<'EOF'\nnpm i left-pad\nEOF", I, ['npm left-pad -']],
  ["python3 <<'EOF'\nimport os\nos.system('npm i x')\nEOF", N],
  ["bash -c 'echo hi' <<'EOF'\nnpm i body-pkg\nEOF", N],
  ['cat <<EOF > f && npm i real-pkg\nnpm i body-pkg\nEOF', I, ['npm real-pkg -']],
  ['cat <<EOF\nnpm i body-pkg\nEOF\nnpm i after-pkg', I, ['npm after-pkg -']],
  ['cat <<"EOF"\nnpm i body-pkg\nEOF\nnpm i after-pkg', I, ['npm after-pkg -']],
  ['cat <<E\\OF\nnpm i body-pkg\nEOF\nnpm i after-pkg', I, ['npm after-pkg -']],
  ['cat <<-EOF\n\tnpm i body-pkg\n\t\tEOF\nnpm i after-pkg', I, ['npm after-pkg -']],
  ['cat <<EOF\nnpm i body-pkg\n\tEOF\nnpm i still-body\nEOF', N],
  ['cat <<EOF\nnpm i body-pkg\nEOF \nnpm i still-body', N],
  ["cat <<A - <<'B' | tee f\nnpm i a\nA\nnpm i b\nB\npip install after-pkg", I, ['PyPI after-pkg -']],
  ['cat <<EOF\nnpm i never-ended', N],
  ["grep -q x <<< 'npm i data-pkg' && npm i real-pkg", I, ['npm real-pkg -']],
  ['echo $((1 << 2))\nnpm i after-pkg', I, ['npm after-pkg -']],
  ['(( x = 1 << 2 ))\nnpm i after-pkg', I, ['npm after-pkg -']],
  ['echo "<<EOF"\nnpm i after-pkg', I, ['npm after-pkg -']],
  ["bash -c 'cat <<EOF\nnpm i body-pkg\nEOF\nnpm i inner-pkg'", I, ['npm inner-pkg -']],
  ['docker run --rm node:20 npm i x', N],
  ['ls -la && echo done', N],
  ['', N],
  ['   ', N],
  [
    'npm i a b c d e f g h i j k l',
    I,
    ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((n) => `npm ${n} -`),
    ['2 more packages => not checked: at most 10 packages are checked per command'],
  ],
  [
    'pip install p1 p2 p3 p4 p5 p6 && npm i n1 n2 n3 n4 n5 n6',
    I,
    [
      ...['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].map((n) => `PyPI ${n} -`),
      ...['n1', 'n2', 'n3', 'n4'].map((n) => `npm ${n} -`),
    ],
    ['2 more packages => not checked: at most 10 packages are checked per command'],
  ],
  [
    'npm i ./a lodash https://x.example/b.tgz && go get ./... && pip install -e .',
    I,
    ['npm lodash -'],
    [`./a => ${LOCAL}`, `https://x.example/b.tgz => ${URL}`, `./... => ${LOCAL}`, `. => ${LOCAL}`],
  ],
];

const table: Array<[string, Row[]]> = [
  ['npm, cnpm', npm],
  ['yarn, pnpm, bun', yarnPnpmBun],
  ['pip', pip],
  ['python launchers', launchers],
  ['pipx, poetry, pdm, uv', pythonTools],
  ['cargo', cargo],
  ['go', go],
  ['dotnet', dotnet],
  ['command lines', lines],
];

function render(line: string) {
  const parsed = parseCommandLine(line);
  return {
    isInstall: parsed.isInstall,
    installs: parsed.installs.map((r) => `${r.ecosystem} ${r.name} ${r.version ?? '-'}`),
    skipped: parsed.skipped.map((s) => `${s.spec} => ${s.why}`),
  };
}

describe('parseCommandLine', () => {
  for (const [family, rows] of table) {
    describe(family, () => {
      it.each(rows)('%j', (line, isInstall, installs = [], skipped = []) => {
        expect(render(line)).toEqual({ isInstall, installs, skipped });
      });
    });
  }

  it('has at least 150 table rows', () => {
    expect(table.reduce((n, [, rows]) => n + rows.length, 0)).toBeGreaterThanOrEqual(150);
  });

  it('keeps each version text as the contract spells it', () => {
    expect(parseCommandLine('npm i @scope/pkg').installs).toEqual([
      { ecosystem: 'npm', name: '@scope/pkg', version: null },
    ]);
    expect(parseCommandLine('pip install "pkg[extra]>=2"').installs).toEqual([
      { ecosystem: 'PyPI', name: 'pkg', version: '>=2' },
    ]);
  });

  it('lists at most MAX_PACKAGES packages, in order', () => {
    const names = Array.from({ length: 25 }, (_, i) => `pkg${i}`);
    const parsed = parseCommandLine(`npm i ${names.join(' ')}`);
    expect(parsed.installs.map((r) => r.name)).toEqual(names.slice(0, MAX_PACKAGES));
    expect(parsed.skipped).toEqual([
      { spec: '15 more packages', why: 'not checked: at most 10 packages are checked per command' },
    ]);
  });

  it('lists at most 20 skipped specs and counts the rest', () => {
    const paths = Array.from({ length: 30 }, (_, i) => `./p${i}`);
    const parsed = parseCommandLine(`npm i ${paths.join(' ')}`);
    expect(parsed.skipped).toHaveLength(21);
    expect(parsed.skipped[20]).toEqual({ spec: '10 more arguments', why: 'not checked, not listed' });
  });
});
