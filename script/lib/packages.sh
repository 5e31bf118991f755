# Installs what CarePortal's scripts need and this machine lacks: Debian packages by name, PyPI packages by module.
# Sourced by script/server and script/test.

ensure_debian_packages() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "Installing Debian packages: ${missing[*]}"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    fi
}

# Each argument is module=package, e.g. axe_selenium_python=axe-selenium-python.
ensure_python_packages() {
    local missing=()
    for pair in "$@"; do
        python3 -c "import ${pair%%=*}" 2>/dev/null || missing+=("${pair#*=}")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "Installing PyPI packages: ${missing[*]}"
        python3 -m pip install -q "${missing[@]}"
    fi
}

# Debian packages the Swift build links against, and the font the PDF reports are set in.
BUILD_PACKAGES=(libxml2-dev libcmark-dev libcurl4-openssl-dev pkg-config libhpdf-dev libqrencode-dev fonts-dejavu-core)
