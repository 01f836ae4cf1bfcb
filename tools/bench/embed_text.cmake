# Writes the text file IN as the body of a C string literal to OUT (one
# quoted line per line of IN), for #include inside an initializer.
# Usage: cmake -DIN=file -DOUT=file -P embed_text.cmake
file(READ "${IN}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
file(WRITE "${OUT}.tmp" "    \"${text}\"\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
