// io::escape_markup: the four characters that end XML/HTML text or a double-quoted attribute.
#include <gtest/gtest.h>

#include <tendyn/io/markup.hpp>

namespace {

TEST(Markup, EscapesTheFourSpecialCharactersAndNothingElse) {
  EXPECT_EQ(tendyn::io::escape_markup(R"(a<b>&"c"')"), "a&lt;b&gt;&amp;&quot;c&quot;'");
  EXPECT_EQ(tendyn::io::escape_markup("</script>"), "&lt;/script&gt;");
  EXPECT_EQ(tendyn::io::escape_markup("plain text, é"), "plain text, é");  // UTF-8 passes unchanged
  EXPECT_EQ(tendyn::io::escape_markup(""), "");
  EXPECT_EQ(tendyn::io::escape_markup("&amp;"), "&amp;amp;");  // not idempotent: escape once
}

}  // namespace
