#!/usr/bin/env bash
# Installs the real renderers the LaTeX tests run (tests/test_latex_render.py):
#   - LuaLaTeX with luatexja and the HaranoAji Japanese fonts (Debian's TeX Live), offline;
#   - poppler-utils (pdftoppm, pdffonts) to turn a compiled page into PNG;
#   - node and the npm package katex, installed into .ci/node/ (not committed).
# CI runs this as root on Debian with CI=true; locally it installs what is missing when
# run as root, and otherwise says what to install.
set -euo pipefail
cd "$(dirname "$0")/.."

KATEX_VERSION="0.16.22"
DEBS=(texlive-luatex texlive-lang-japanese texlive-latex-recommended poppler-utils)

missing=()
for p in "${DEBS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "install-renderers: apt-get install ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "install-renderers: missing ${missing[*]}; as root: apt-get install ${missing[*]}" >&2
        [ "${CI:-}" = "true" ] && exit 1
        exit 0
    fi
fi

# KaTeX for node, pinned, in .ci/node/node_modules/katex (the tests look there).
have=$(node -e "try{console.log(require('./.ci/node/node_modules/katex/package.json').version)}catch(e){}" 2>/dev/null || true)
if [ "$have" != "$KATEX_VERSION" ]; then
    echo "install-renderers: npm install katex@$KATEX_VERSION into .ci/node"
    mkdir -p .ci/node
    npm install --prefix .ci/node --no-audit --no-fund --no-save --silent "katex@$KATEX_VERSION"
fi

# LuaLaTeX builds its font cache on the first run; do it now so the tests' timing is steady.
if command -v luaotfload-tool >/dev/null 2>&1; then
    luaotfload-tool --update >/dev/null 2>&1 || true
fi
echo "install-renderers: lualatex $(command -v lualatex), node $(node --version), katex $KATEX_VERSION"
