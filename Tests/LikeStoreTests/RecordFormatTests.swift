// The format a record file names, read without decoding it: what isLiked and likedIDs refuse a
// later version's record by.

import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct RecordFormatTests {
    @Test func theFormatIsTheMemberNotAValueOfTheSameWord() {
        #expect(RecordFiles.statedFormat(in: Array(#"{"albums":["format"],"format" : 7,"id":"p"}"#.utf8)) == 7)
        #expect(RecordFiles.statedFormat(in: Array(#"{"format":1,"note":"\"format\":9"}"#.utf8)) == 1)
        #expect(RecordFiles.statedFormat(in: Array(#"{"id":"format"}"#.utf8)) == nil)
    }
}
