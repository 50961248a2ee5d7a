#!/usr/bin/env bash
# Prints the home of a JDK 25 or newer: JAVA_HOME if it is one, else the newest from the system JVM folder.
# Exits 1 with a message on stderr when there is none. Sourced by .ci/run and ./nexar.
java_major() {
  local v
  v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  echo "${v%%.*}"
}
find_jdk25() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    local m
    m=$(java_major "$JAVA_HOME")
    if [ -n "$m" ] && [ "$m" -ge 25 ] 2>/dev/null; then
      echo "$JAVA_HOME"
      return 0
    fi
  fi
  local best="" bestm=0 d m
  for d in /usr/lib/jvm/* /usr/local/lib/jvm/* /opt/java/* /opt/jdk*; do
    [ -x "$d/bin/java" ] && [ -x "$d/bin/javac" ] || continue
    m=$(java_major "$d")
    if [ -n "$m" ] && [ "$m" -ge 25 ] 2>/dev/null && [ "$m" -gt "$bestm" ]; then
      best=$d
      bestm=$m
    fi
  done
  if [ -z "$best" ]; then
    echo "nexar: no JDK 25 or newer found: JAVA_HOME is '${JAVA_HOME:-unset}' and /usr/lib/jvm has none." >&2
    echo "nexar: install one (for example Temurin 25) and set JAVA_HOME to it." >&2
    return 1
  fi
  echo "$best"
}
