"""The bughouse rules core: two boards, four pockets, rule sets as data. Pure."""
