#!/bin/sh
# Doxygen input filter for the public headers: they document the API in plain // comments, which
# Doxygen ignores; this hands it /// (and ///< for a comment after a member) instead, so the
# reference is built from the comments as they are written.
exec sed -E -e 's#^([[:space:]]*)//([^/]|$)#\1///\2#' \
  -e 's#([;,{)])([[:space:]]+)//([^/])#\1\2///<\3#' "$1"
