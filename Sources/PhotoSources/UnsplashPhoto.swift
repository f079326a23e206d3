// Unsplash API photo objects, decoded as the API sends them, and what a favorite keeps of one.

import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A photo object of the Unsplash API, as returned by `GET /photos/:id`, in lists, and in the
/// `results` of a search.
///
/// Only the fields a favorite keeps are decoded; every one but `id` may be missing or `null`.
public struct UnsplashPhoto: Sendable, Hashable, Decodable {
    /// The photo's id, such as `Dwu85P9SOIk`.
    public var id: String
    /// `created_at`: when the photo was published, as the API writes it.
    public var createdAt: String?
    /// The original photo's width in pixels.
    public var width: Int?
    /// The original photo's height in pixels.
    public var height: Int?
    /// The photo's dominant colour, such as `#60544D`.
    public var color: String?
    /// The photographer's description of the photo.
    public var description: String?
    /// `alt_description`: Unsplash's own description, used when `description` is missing.
    public var altDescription: String?
    /// Image addresses by size: `raw`, `full`, `regular`, `small`, `thumb`.
    public var urls: [String: String]?
    /// `links.html`: the photo's page.
    public var pageURL: String?
    /// The photographer.
    public var user: User?

    /// The photographer.
    public struct User: Sendable, Hashable, Decodable {
        /// The photographer's display name.
        public var name: String?
        /// The photographer's Unsplash user name.
        public var username: String?
        /// `profile_image` addresses by size: `small`, `medium`, `large`.
        public var profileImage: [String: String]?
        /// `links.html`: the photographer's page.
        public var pageURL: String?

        enum CodingKeys: String, CodingKey {
            case name, username, links
            case profileImage = "profile_image"
        }

        /// Decodes the photographer, tolerating missing, `null` and mistyped fields.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try? container.decodeIfPresent(String.self, forKey: .name)
            username = try? container.decodeIfPresent(String.self, forKey: .username)
            profileImage = try? container.decodeIfPresent([String: String?].self, forKey: .profileImage)?.compactMapValues { $0 }
            pageURL = (try? container.decodeIfPresent([String: String?].self, forKey: .links))?["html"] ?? nil
        }
    }

    /// `links.download_location`: the address to request once the photo is kept, as Unsplash's
    /// API guidelines ask.
    public var downloadLocation: String?

    enum CodingKeys: String, CodingKey {
        case id, width, height, color, description, urls, links, user
        case createdAt = "created_at"
        case altDescription = "alt_description"
    }

    /// Decodes a photo object, tolerating missing, `null` and mistyped optional fields.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        createdAt = try? container.decodeIfPresent(String.self, forKey: .createdAt)
        width = try? container.decodeIfPresent(Int.self, forKey: .width)
        height = try? container.decodeIfPresent(Int.self, forKey: .height)
        color = try? container.decodeIfPresent(String.self, forKey: .color)
        description = try? container.decodeIfPresent(String.self, forKey: .description)
        altDescription = try? container.decodeIfPresent(String.self, forKey: .altDescription)
        urls = try? container.decodeIfPresent([String: String?].self, forKey: .urls)?.compactMapValues { $0 }
        let links = try? container.decodeIfPresent([String: String?].self, forKey: .links)
        pageURL = links?["html"] ?? nil
        downloadLocation = links?["download_location"] ?? nil
        user = try? container.decodeIfPresent(User.self, forKey: .user)
    }

    /// What a favorite keeps: the description (else the alt description), the photographer's
    /// name, user name and page, colour, size, creation date and page.
    public var metadata: PhotoMetadata {
        PhotoMetadata(
            description: description ?? altDescription, photographer: user?.name, photographerUsername: user?.username,
            color: color, sourceURL: pageURL, width: width, height: height,
            createdAt: createdAt.flatMap(LikeTimestamp.date(from:)), photographerURL: user?.pageURL)
    }

    /// The address of the image to keep: `urls.regular`.
    public var imageURL: URL? { urls?["regular"].flatMap(URL.init(string:)) }

    /// The address of the photographer's profile picture: `user.profile_image.medium`.
    public var userImageURL: URL? { user?.profileImage?["medium"].flatMap(URL.init(string:)) }

    /// Decodes one photo object, an array of them, or a search response (`results`).
    ///
    /// - Throws: ``PhotoSourceError`` (``PhotoSourceError/Kind/malformed``) naming what is wrong when the JSON
    ///   is malformed or is none of these shapes.
    public static func photos(fromJSON data: Data) throws -> [UnsplashPhoto] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw PhotoSourceError(.malformed, "The file is not valid JSON.")
        }
        func decodeOne(_ value: JSONValue, at position: String) throws -> UnsplashPhoto {
            guard case .object = value else {
                throw PhotoSourceError(.malformed, "\(position) is not a JSON object, so it is not an Unsplash photo.")
            }
            guard case .string? = value["id"] else {
                throw PhotoSourceError(.malformed, "\(position) has no string \"id\", so it is not an Unsplash photo.")
            }
            do {
                return try JSONDecoder().decode(UnsplashPhoto.self, from: try JSONEncoder().encode(value))
            } catch {
                throw PhotoSourceError(.malformed, "\(position) is not an Unsplash photo.")
            }
        }
        switch value {
        case .array(let items):
            return try items.enumerated().map { try decodeOne($1, at: "Item \($0 + 1) of the array") }
        case .object:
            if let results = value["results"] {
                guard case .array(let items) = results else {
                    throw PhotoSourceError(.malformed, "The search response's \"results\" is not an array.")
                }
                return try items.enumerated().map { try decodeOne($1, at: "Result \($0 + 1)") }
            }
            return [try decodeOne(value, at: "The JSON object")]
        default:
            break
        }
        throw PhotoSourceError(.malformed, "The JSON is neither an Unsplash photo, an array of photos nor a search response.")
    }
}
