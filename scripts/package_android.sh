#!/usr/bin/env bash
# The drop-in package for the Android app, from an AArch64 build:
#
#   OUT_DIR/jniLibs/arm64-v8a/libkazeia.so       the engine and its C API (include/kazeia.h)
#   OUT_DIR/jniLibs/arm64-v8a/libkazeia_jni.so   the JNI glue of the ai.kazeia classes
#   OUT_DIR/kazeia.jar                           the ai.kazeia classes (Java 11 bytecode)
#   OUT_DIR/README.md                            how the app's Gradle build takes them
#
# Usage: scripts/package_android.sh [BUILD_DIR] [OUT_DIR]   (default: build-aarch64 out/android)
#
# BUILD_DIR is an AArch64 CMake build: build-android-arm64 (the NDK preset: what the app ships)
# or build-aarch64 (Debian's glibc cross compiler, the aarch64-linux preset: the rehearsal that
# proves the layout and the dependency rule here, where no NDK exists; Android cannot load it).
# The three targets are brought up to date (ninja: nothing to do when they are); a build
# configured with KAZEIA_BUILD_JNI=OFF, as the aarch64-linux preset is, is switched ON first,
# which changes only bindings/. The libraries are installed stripped (cmake --install --strip:
# the build's own strip, RUNPATH rewritten from the build tree's to $ORIGIN), then checked: AArch64,
# only the C/C++ run-time NEEDED (scripts/check_needed.sh), no absolute RUNPATH, only kz_* and JNI
# symbols exported, every native method of ai.kazeia.Native present, Java 11 class files.
# Running it again gives the same files; only these four paths under OUT_DIR are written.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-aarch64}")
out=$(realpath -m "${2:-$root/out/android}")
abi=arm64-v8a

fail() {
  echo "package_android: $*" >&2
  exit 1
}

[ -f "$build/CMakeCache.txt" ] || fail "no CMake build in $build (build-aarch64: scripts/test_arm.sh," \
  "or cmake --preset aarch64-linux; build-android-arm64: cmake --preset android-arm64)"
system_file=$(find "$build/CMakeFiles" -maxdepth 2 -name CMakeSystem.cmake | head -n 1)
[ -n "$system_file" ] || fail "$build is not configured (no CMakeFiles/*/CMakeSystem.cmake)"
system=$(sed -n 's/^set(CMAKE_SYSTEM_NAME "\(.*\)")$/\1/p' "$system_file")
processor=$(sed -n 's/^set(CMAKE_SYSTEM_PROCESSOR "\(.*\)")$/\1/p' "$system_file")
case $processor in
  aarch64 | arm64 | ARM64) ;;
  *) fail "$build targets $system/$processor; jniLibs/$abi needs an AArch64 build" \
    "(build-aarch64 or build-android-arm64)" ;;
esac
for tool in cmake javap; do
  command -v "$tool" > /dev/null || fail "$tool missing (apt-get install cmake openjdk-17-jdk-headless)"
done

start=$SECONDS
if grep -q '^KAZEIA_BUILD_JNI:BOOL=OFF$' "$build/CMakeCache.txt"; then
  echo "package_android: $build was configured with KAZEIA_BUILD_JNI=OFF; turning it ON (bindings/ only)"
  nice -n 19 cmake -S "$root" -B "$build" -DKAZEIA_BUILD_JNI=ON > /dev/null
fi
nice -n 19 cmake --build "$build" --target kazeia_shared kazeia_jni kazeia_java ||
  fail "building kazeia_shared kazeia_jni kazeia_java in $build failed (a JDK is needed for the JNI part)"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --prefix "$stage" --strip > /dev/null
lib=$(find "$stage" -name libkazeia.so | head -n 1)
jni=$(find "$stage" -name libkazeia_jni.so | head -n 1)
jar=$(find "$stage" -name kazeia.jar | head -n 1)
if [ -z "$lib" ] || [ -z "$jni" ] || [ -z "$jar" ]; then
  fail "cmake --install $build gave no libkazeia.so, libkazeia_jni.so or kazeia.jar"
fi
lib=$(readlink -f "$lib")  # the glibc build installs libkazeia.so -> .so.1 -> .so.1.0.0

# The libraries.
"$root/scripts/check_needed.sh" "$lib" "$jni" || fail "a packaged library needs more than the C/C++ run-time (above)"
dynamic_exports() {  # defined, default-visibility dynamic symbols, without version suffixes
  readelf --dyn-syms -W "$1" |
    awk '$7 != "UND" && $7 != "Ndx" && ($5 == "GLOBAL" || $5 == "WEAK") && $6 == "DEFAULT" {print $8}' |
    sed 's/@.*//' | sort -u
}
for so in "$lib" "$jni"; do
  name=$(basename "$so")
  readelf -h "$so" | grep -q 'Machine: *AArch64' || fail "$name is not an AArch64 library"
  if readelf -S -W "$so" | grep -q ' \.symtab '; then fail "$name was not stripped"; fi
  runpath=$(readelf -d "$so" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p')
  case $runpath in
    '' | "\$ORIGIN") ;;
    *) fail "$name has the run path '$runpath' (a build machine's folder)" ;;
  esac
done
# Read once, outside the filters, so that a failing readelf stops the script (set -e).
lib_exports=$(dynamic_exports "$lib")
jni_exports=$(dynamic_exports "$jni")
[ -n "$lib_exports" ] || fail "libkazeia.so exports nothing"
stray=$(grep -v '^kz_' <<< "$lib_exports" | head -n 5 | paste -sd ' ' -) || :
[ -z "$stray" ] || fail "libkazeia.so exports more than kz_*: $stray"
stray=$(grep -Ev '^(Java_ai_kazeia_|JNI_OnLoad$|JNI_OnUnload$)' <<< "$jni_exports" |
  head -n 5 | paste -sd ' ' -) || :
[ -z "$stray" ] || fail "libkazeia_jni.so exports more than its JNI functions: $stray"
needs_lib=$(readelf -d "$jni" | sed -n 's/.*(NEEDED).*\[\(libkazeia\.so[^]]*\)\]$/\1/p')
[ -n "$needs_lib" ] || fail "libkazeia_jni.so does not need libkazeia.so"
if [ "$system" = Android ] && [ "$needs_lib" != libkazeia.so ]; then
  fail "libkazeia_jni.so needs $needs_lib, but an APK holds only lib*.so names (libkazeia.so)"
fi
if readelf -d "$lib" "$jni" | grep -q '\[libc++_shared\.so\]'; then
  fail "the libraries need libc++_shared.so (ANDROID_STL=c++_shared): copy it from the NDK" \
    "(toolchains/llvm/prebuilt/*/sysroot/usr/lib/aarch64-linux-android/) into jniLibs/$abi too"
fi

# The classes: Java 11 at most (Android's D8 and minSdk 28), and a JNI function for each native.
versions=$(javap -v -cp "$jar" ai.kazeia.Native ai.kazeia.Session ai.kazeia.Engine |
  sed -n 's/^ *major version: //p' | sort -u)
for v in $versions; do
  [ "$v" -le 55 ] || fail "kazeia.jar has class files of version $v (Java $((v - 44))); Java 11 (55) at most"
done
methods=$(javap -p -cp "$jar" ai.kazeia.Native | sed -n 's/.* native .* \([A-Za-z0-9_]*\)(.*/\1/p')
[ -n "$methods" ] || fail "found no native method in kazeia.jar's ai.kazeia.Native"
missing=
for method in $methods; do
  symbol=Java_ai_kazeia_Native_${method//_/_1}
  grep -qx "$symbol" <<< "$jni_exports" || missing="$missing $symbol"
done
[ -z "$missing" ] || fail "libkazeia_jni.so lacks the native methods of kazeia.jar:$missing"

# The package. Only these four paths are written, so OUT_DIR may be an app's own folder.
mkdir -p "$out/jniLibs/$abi"
cp -f "$lib" "$out/jniLibs/$abi/libkazeia.so"
cp -f "$jni" "$out/jniLibs/$abi/libkazeia_jni.so"
cp -f "$jar" "$out/kazeia.jar"

commit=$(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo unknown)
if [ -n "$(git -C "$root" status --porcelain 2> /dev/null)" ]; then commit="$commit plus uncommitted changes"; fi
if [ "$system" = Android ]; then
  origin="the NDK build \`$(basename "$build")\` (Android, $processor), commit $commit."
  warning=
else
  origin="the glibc cross build \`$(basename "$build")\` ($system, $processor), commit $commit."
  warning="
> **Not for the app.** These libraries were built with Debian's \`aarch64-linux-gnu\` toolchain
> against glibc: they need \`libc.so.6\` and \`libstdc++.so.6\`, which Android's bionic does not
> provide, and the JNI library asks for \`$needs_lib\`, a name an APK cannot hold. This package
> proves the layout, the strip and the dependency rule on a machine without the NDK. For the
> app, build with the NDK and package that build:
>
>     cmake --preset android-arm64 && cmake --build --preset android-arm64
>     scripts/package_android.sh build-android-arm64 OUT_DIR
"
fi
# shellcheck disable=SC2016  # the backquotes are Markdown
needs_line=$(for so in "$lib" "$jni"; do
  printf '%s needs %s; ' "$(basename "$so" | sed 's/\.so\..*/.so/')" \
    "$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/`\1`/p' | paste -sd ' ' -)"
done | sed 's/; $//')
if [ "$system" = Android ] && ! readelf -d "$lib" | grep -q 'libc++_shared'; then
  needs_line="$needs_line (the C++ run-time is linked into each, \`ANDROID_STL=c++_static\`: no
\`libc++_shared.so\` to ship)"
fi
cat > "$out/README.md" << EOF
# Kazeia-Engine for an Android app

Built by \`scripts/package_android.sh\` from $origin
$warning
| file | contents |
|---|---|
| \`jniLibs/$abi/libkazeia.so\` | the engine and its C API (\`include/kazeia.h\`), stripped |
| \`jniLibs/$abi/libkazeia_jni.so\` | the JNI glue of the \`ai.kazeia\` classes, stripped |
| \`kazeia.jar\` | the \`ai.kazeia\` classes (\`Engine\`, \`Session\`, ...), Java 11 bytecode |

Both libraries need only the C and C++ run-times (\`scripts/check_needed.sh\`): $needs_line.

The model is not part of the package: the app copies the \`.gguf\` file to its own storage and
passes the path to \`Engine.load\` (\`docs/android.md\`, "The app side").

## Gradle

Put the folder in the app module, e.g. as \`app/kazeia/\`, then in \`app/build.gradle.kts\`:

\`\`\`kotlin
android {
    defaultConfig {
        minSdk = 28                          // the API level the libraries are built for
        ndk { abiFilters += "$abi" }
    }
    sourceSets.getByName("main").jniLibs.srcDir("kazeia/jniLibs")
    compileOptions {                         // the classes are Java 11
        sourceCompatibility = JavaVersion.VERSION_11
        targetCompatibility = JavaVersion.VERSION_11
    }
}

dependencies {
    implementation(files("kazeia/kazeia.jar"))
}
\`\`\`

(Groovy \`build.gradle\`: \`android.sourceSets.main.jniLibs.srcDirs += ['kazeia/jniLibs']\` and
\`implementation files('kazeia/kazeia.jar')\`. Copying the two \`.so\` files into
\`app/src/main/jniLibs/$abi/\` instead needs no source-set line.)

\`minSdk\` must be at least the \`ANDROID_PLATFORM\` of the build (28 in the presets): the
libraries may call bionic functions that older releases lack. Keep the Android Gradle plugin's
default (uncompressed, page-aligned libraries in the APK, loaded in place).

## Manifest

The GPU path opens the vendor's OpenCL library at run time. An app that targets Android 12
(API 31) or later must ask for it, inside \`<application>\`; \`required="false"\` keeps the app
installable on devices without it (the engine then reports \`opencl\` as unavailable and the CPU
runs everything):

\`\`\`xml
<uses-native-library android:name="libOpenCL.so" android:required="false"/>
\`\`\`

## Loading

\`ai.kazeia.Native\` calls \`System.loadLibrary("kazeia_jni")\` when the first \`ai.kazeia\` class
is used; Android's loader finds \`libkazeia.so\`, its dependency, in the same app library folder.
EOF

echo "package_android: $out ($((SECONDS - start)) s)"
(cd "$out" && for f in jniLibs/$abi/libkazeia.so jniLibs/$abi/libkazeia_jni.so kazeia.jar README.md; do
  printf '  %-34s %9s bytes\n' "$f" "$(stat -c %s "$f")"
done)
printf '  (unstripped in %s: libkazeia %s bytes, libkazeia_jni %s bytes)\n' "$(basename "$build")" \
  "$(stat -L -c %s "$build/bindings/libkazeia.so")" "$(stat -L -c %s "$build/bindings/libkazeia_jni.so")"
if [ "$system" != Android ]; then
  echo "package_android: note: a glibc build: the layout and the checks, not loadable on Android (README.md)"
fi
